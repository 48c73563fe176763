//! `memcpy`, `memmove`, `memset`, `memcmp` and `bcmp` for the static musl release
//! binary on x86_64 (`scripts/build-release.sh`), in place of musl's own.
//!
//! Why: musl's x86_64 `memcpy` moves the unaligned head and the tail a byte at a time
//! (`movsb`) around a `rep movsq`, which costs tens of cycles even for the 10-100 byte
//! copies a `String` or `BTreeMap` clone makes. In a one-Cluster `topology plan` it was
//! 7.7 % of the samples against glibc's 1.6 %, and `generate provider -c kubeadm` ran
//! 10.5 ms on musl against 9.4 ms on glibc. glibc itself is no answer for a start-up
//! bound binary: at every start it runs about sixty `cpuid`s to size the caches, 0.4 ms
//! on a virtual machine where each is a trip to the hypervisor (README "Performance").
//!
//! How: up to 64 bytes, unaligned 16/8/4/2/1-byte loads of the head and the tail, all
//! loaded before the first store (so the same code is also an overlap-safe `memmove`);
//! longer, `rep movsb` / `rep stosb` (fast on every x86_64 with ERMSB, in microcode);
//! a `memmove` whose destination overlaps the source from above copies 16-byte blocks
//! from the end. `memcmp` compares 64 and then 16 bytes at a time (SSE2, as every x86_64)
//! and finds the first differing byte from the compare mask (musl's compares a byte at
//! a time). Every loop holds an empty `asm!`, which LLVM must assume touches memory, so
//! it cannot turn the loop back into a call to the function being defined.
//!
//! The symbols are exported (`no_mangle`) only in an optimised musl x86_64 build; in a
//! debug build `read_unaligned` may itself lower to a `memcpy` call. Elsewhere the
//! functions are compiled for their tests alone, which compare them byte for byte with
//! `core::ptr::copy`, `copy_nonoverlapping` and `write_bytes` (the C library's) and
//! slice ordering for every length to 300, every alignment and every overlap.
//!
//! Safety: each function has its C contract (valid, non-null regions of `n` bytes;
//! `memcpy`'s apart), as every caller of the C library's already keeps.

use core::arch::asm;
use core::arch::x86_64::{
    __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
    _mm_storeu_si128,
};

#[inline(always)]
unsafe fn load16(p: *const u8) -> __m128i {
    _mm_loadu_si128(p.cast())
}

#[inline(always)]
unsafe fn store16(p: *mut u8, v: __m128i) {
    _mm_storeu_si128(p.cast(), v)
}

/// Copies `n <= 64` bytes, every load before the first store: correct for any overlap.
#[inline(always)]
unsafe fn copy_upto64(d: *mut u8, s: *const u8, n: usize) {
    if n >= 32 {
        let (a, b) = (load16(s), load16(s.add(16)));
        let (c, e) = (load16(s.add(n - 32)), load16(s.add(n - 16)));
        store16(d, a);
        store16(d.add(16), b);
        store16(d.add(n - 32), c);
        store16(d.add(n - 16), e);
    } else if n >= 16 {
        let (a, b) = (load16(s), load16(s.add(n - 16)));
        store16(d, a);
        store16(d.add(n - 16), b);
    } else if n >= 8 {
        let a = s.cast::<u64>().read_unaligned();
        let b = s.add(n - 8).cast::<u64>().read_unaligned();
        d.cast::<u64>().write_unaligned(a);
        d.add(n - 8).cast::<u64>().write_unaligned(b);
    } else if n >= 4 {
        let a = s.cast::<u32>().read_unaligned();
        let b = s.add(n - 4).cast::<u32>().read_unaligned();
        d.cast::<u32>().write_unaligned(a);
        d.add(n - 4).cast::<u32>().write_unaligned(b);
    } else if n >= 2 {
        let a = s.cast::<u16>().read_unaligned();
        let b = s.add(n - 2).cast::<u16>().read_unaligned();
        d.cast::<u16>().write_unaligned(a);
        d.add(n - 2).cast::<u16>().write_unaligned(b);
    } else if n == 1 {
        *d = *s;
    }
}

/// `rep movsb`: a forward copy, correct when the destination is below the source or
/// apart from it (the instruction is defined as a byte-at-a-time copy upwards).
#[inline(always)]
unsafe fn rep_movsb(d: *mut u8, s: *const u8, n: usize) {
    // The direction flag is clear on entry to every function (System V ABI).
    asm!(
        "rep movsb",
        inout("rcx") n => _,
        inout("rdi") d => _,
        inout("rsi") s => _,
        options(nostack, preserves_flags)
    );
}

/// Copies `n > 16` bytes downwards, 16 at a time: correct when the destination
/// overlaps the source from above (`s < d < s + n`). A store at `d + i` can only
/// overwrite source bytes above `i`, which have all been read by then; the first 16
/// bytes are read before anything is stored.
#[inline(always)]
unsafe fn copy_down(d: *mut u8, s: *const u8, n: usize) {
    let head = load16(s);
    let mut i = n;
    while i > 16 {
        i -= 16;
        store16(d.add(i), load16(s.add(i)));
        asm!("", options(nostack, preserves_flags));
    }
    store16(d, head);
}

#[cfg_attr(all(target_env = "musl", not(debug_assertions)), no_mangle)]
unsafe extern "C" fn memcpy(d: *mut u8, s: *const u8, n: usize) -> *mut u8 {
    if n <= 64 {
        copy_upto64(d, s, n);
    } else {
        rep_movsb(d, s, n);
    }
    d
}

#[cfg_attr(all(target_env = "musl", not(debug_assertions)), no_mangle)]
unsafe extern "C" fn memmove(d: *mut u8, s: *const u8, n: usize) -> *mut u8 {
    if n <= 64 {
        copy_upto64(d, s, n);
    } else if (d as usize).wrapping_sub(s as usize) >= n {
        // The destination is below the source, or past its end.
        rep_movsb(d, s, n);
    } else {
        copy_down(d, s, n);
    }
    d
}

#[cfg_attr(all(target_env = "musl", not(debug_assertions)), no_mangle)]
unsafe extern "C" fn memset(d: *mut u8, c: i32, n: usize) -> *mut u8 {
    let b = c as u8;
    if n >= 16 {
        if n > 64 {
            asm!(
                "rep stosb",
                inout("rcx") n => _,
                inout("rdi") d => _,
                in("al") b,
                options(nostack, preserves_flags)
            );
            return d;
        }
        let v = _mm_set1_epi8(b as i8);
        store16(d, v);
        store16(d.add(n - 16), v);
        if n > 32 {
            store16(d.add(16), v);
            store16(d.add(n - 32), v);
        }
    } else if n >= 8 {
        let v = u64::from_ne_bytes([b; 8]);
        d.cast::<u64>().write_unaligned(v);
        d.add(n - 8).cast::<u64>().write_unaligned(v);
    } else if n >= 4 {
        let v = u32::from_ne_bytes([b; 4]);
        d.cast::<u32>().write_unaligned(v);
        d.add(n - 4).cast::<u32>().write_unaligned(v);
    } else if n >= 2 {
        let v = u16::from_ne_bytes([b; 2]);
        d.cast::<u16>().write_unaligned(v);
        d.add(n - 2).cast::<u16>().write_unaligned(v);
    } else if n == 1 {
        *d = b;
    }
    d
}

/// `memcmp` (and `bcmp`, the same answer): 16 bytes at a time, the first differing
/// byte found from the compare mask; musl's compares a byte at a time, and a no-change
/// `render -o` compares a 100,000-Cluster lock (246 MB) with the previous one.
#[cfg_attr(all(target_env = "musl", not(debug_assertions)), no_mangle)]
unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    let mut i = 0;
    // 64 bytes a step while they are equal (a lock compared with the previous one);
    // the 16-byte steps below find where a step differs.
    while i + 64 <= n {
        let e0 = _mm_cmpeq_epi8(load16(a.add(i)), load16(b.add(i)));
        let e1 = _mm_cmpeq_epi8(load16(a.add(i + 16)), load16(b.add(i + 16)));
        let e2 = _mm_cmpeq_epi8(load16(a.add(i + 32)), load16(b.add(i + 32)));
        let e3 = _mm_cmpeq_epi8(load16(a.add(i + 48)), load16(b.add(i + 48)));
        let all = _mm_and_si128(_mm_and_si128(e0, e1), _mm_and_si128(e2, e3));
        if _mm_movemask_epi8(all) != 0xffff {
            break;
        }
        i += 64;
        asm!("", options(nostack, preserves_flags));
    }
    while i + 16 <= n {
        let eq = _mm_movemask_epi8(_mm_cmpeq_epi8(load16(a.add(i)), load16(b.add(i))));
        if eq != 0xffff {
            let j = i + (!eq).trailing_zeros() as usize;
            return i32::from(*a.add(j)) - i32::from(*b.add(j));
        }
        i += 16;
        asm!("", options(nostack, preserves_flags));
    }
    if i == n {
        return 0;
    }
    if n >= 16 {
        // The last 16 bytes, overlapping the ones already found equal.
        let k = n - 16;
        let eq = _mm_movemask_epi8(_mm_cmpeq_epi8(load16(a.add(k)), load16(b.add(k))));
        if eq == 0xffff {
            return 0;
        }
        let j = k + (!eq).trailing_zeros() as usize;
        return i32::from(*a.add(j)) - i32::from(*b.add(j));
    }
    // Fewer than 16 bytes in all: 8 and 4 at a time, compared as big-endian numbers
    // (the first byte the most significant), then the last three one by one.
    if n - i >= 8 {
        let x = a.add(i).cast::<u64>().read_unaligned().swap_bytes();
        let y = b.add(i).cast::<u64>().read_unaligned().swap_bytes();
        if x != y {
            return if x < y { -1 } else { 1 };
        }
        i += 8;
    }
    if n - i >= 4 {
        let x = a.add(i).cast::<u32>().read_unaligned().swap_bytes();
        let y = b.add(i).cast::<u32>().read_unaligned().swap_bytes();
        if x != y {
            return if x < y { -1 } else { 1 };
        }
        i += 4;
    }
    while i < n {
        let (x, y) = (*a.add(i), *b.add(i));
        if x != y {
            return i32::from(x) - i32::from(y);
        }
        i += 1;
        asm!("", options(nostack, preserves_flags));
    }
    0
}

#[cfg_attr(all(target_env = "musl", not(debug_assertions)), no_mangle)]
unsafe extern "C" fn bcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    memcmp(a, b, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX: usize = 300;

    /// A buffer with a different byte at every position (mod 251, a prime).
    fn pattern(len: usize, seed: usize) -> Vec<u8> {
        (0..len)
            .map(|i| ((i * 7 + seed * 13) % 251) as u8)
            .collect()
    }

    #[test]
    fn memcpy_matches_copy_nonoverlapping_for_every_length_and_alignment() {
        for n in 0..=MAX {
            for (so, dof) in [(0, 0), (1, 0), (0, 3), (5, 11), (15, 1), (7, 9)] {
                let src = pattern(n + 32, n);
                let mut ours = pattern(n + 32, n + 1);
                let mut theirs = ours.clone();
                unsafe {
                    let r = memcpy(ours.as_mut_ptr().add(dof), src.as_ptr().add(so), n);
                    assert_eq!(r, ours.as_mut_ptr().add(dof));
                    core::ptr::copy_nonoverlapping(
                        src.as_ptr().add(so),
                        theirs.as_mut_ptr().add(dof),
                        n,
                    );
                }
                assert_eq!(ours, theirs, "n={n} src+{so} dst+{dof}");
            }
        }
    }

    #[test]
    fn memmove_matches_copy_for_every_length_and_overlap() {
        for n in 0..=MAX {
            // Destination at src + delta, in one buffer: below, equal, overlapping from
            // above by every amount around the 16- and 64-byte boundaries, and apart.
            let deltas = (-80i64..=80).chain([-(n as i64) - 5, n as i64 + 5]);
            for delta in deltas {
                let base = MAX + 16;
                let len = base * 2 + n;
                let s = base;
                let d = (base as i64 + delta) as usize;
                let mut ours = pattern(len, n);
                let mut theirs = ours.clone();
                unsafe {
                    let p = ours.as_mut_ptr();
                    let r = memmove(p.add(d), p.add(s), n);
                    assert_eq!(r, p.add(d));
                    let q = theirs.as_mut_ptr();
                    core::ptr::copy(q.add(s), q.add(d), n);
                }
                assert_eq!(ours, theirs, "n={n} delta={delta}");
            }
        }
    }

    #[test]
    fn memset_matches_write_bytes_for_every_length_and_alignment() {
        for n in 0..=MAX {
            for off in [0, 1, 3, 8, 15] {
                for c in [0i32, 0xa5, 0x1ff] {
                    let mut ours = pattern(n + 32, n);
                    let mut theirs = ours.clone();
                    unsafe {
                        let r = memset(ours.as_mut_ptr().add(off), c, n);
                        assert_eq!(r, ours.as_mut_ptr().add(off));
                        core::ptr::write_bytes(theirs.as_mut_ptr().add(off), c as u8, n);
                    }
                    assert_eq!(ours, theirs, "n={n} off={off} c={c:#x}");
                }
            }
        }
    }

    #[test]
    fn memcmp_and_bcmp_order_like_slices_for_every_length_and_difference() {
        for n in 0..=MAX {
            let a = pattern(n + 16, n);
            for off in [0, 1, 9] {
                let x = &a[off..off + n];
                let mut cases = vec![x.to_vec()];
                // One byte changed at every position, up and down across 0x80 (the
                // bytes compare unsigned).
                for at in 0..n {
                    for v in [0u8, 0x7f, 0x80, 0xff] {
                        let mut y = x.to_vec();
                        y[at] = v;
                        cases.push(y);
                    }
                }
                for y in &cases {
                    let want = x.cmp(y.as_slice());
                    let got = unsafe { memcmp(x.as_ptr(), y.as_ptr(), n) };
                    assert_eq!(got.cmp(&0), want, "n={n} off={off} y={y:?}");
                    let got = unsafe { bcmp(x.as_ptr(), y.as_ptr(), n) };
                    assert_eq!(got == 0, want.is_eq(), "bcmp n={n} off={off}");
                }
            }
        }
    }
}
