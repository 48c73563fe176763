//! Work on every core of the thread pool, the largest items first.
//!
//! rayon's `par_iter` splits a slice in halves by position: when one item is much larger
//! than the rest (a provider's biggest CRD is half its components), the thread whose
//! half holds it finishes long after the others have run out of work. Here the items
//! are taken from one queue in the order of their weight, largest first, by every
//! thread of the pool: the longest-processing-time-first rule, so the big items run
//! side by side from the start and the small ones fill in around them.

use std::cmp::Reverse;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The stack size of the pool's threads: the main thread's (`RLIMIT_STACK`, 8 MiB when
/// it is unlimited or unknown; at most 256 MiB, since each thread reserves it), never
/// less than 8 MiB. rayon's default of 2 MiB made the work a run hands to the pool
/// (template execution, YAML reading) overflow at depths the main thread survives.
pub fn pool_stack_size() -> usize {
    const DEFAULT: u64 = 8 << 20;
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `getrlimit` only writes the struct it is given.
    let cur = if unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut r) } == 0
        && r.rlim_cur != libc::RLIM_INFINITY
    {
        r.rlim_cur as u64
    } else {
        DEFAULT
    };
    cur.clamp(DEFAULT, 256 << 20) as usize
}

/// Build rayon's global pool of `threads` threads (0: rayon's default, the cores or
/// `RAYON_NUM_THREADS`) with the stack of [`pool_stack_size`] (the CLI does this once,
/// first). A pool already built (by an earlier call) is kept.
pub fn init_pool(threads: usize) {
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .stack_size(pool_stack_size())
        .build_global();
}

/// `f` applied to each item, on every thread of the pool, the items taken largest
/// `weight` first (ties in their order); the results in the items' order, as
/// `items.iter_mut().map(f).collect()` gives them.
pub fn map_mut_largest_first<T, R, W, F>(items: &mut [T], weight: W, f: F) -> Vec<R>
where
    T: Send,
    R: Send,
    W: Fn(&T) -> usize,
    F: Fn(&mut T) -> R + Sync,
{
    let n = items.len();
    let mut order: Vec<(usize, &mut T)> = items.iter_mut().enumerate().collect();
    order.sort_by_cached_key(|(i, t)| (Reverse(weight(t)), *i));
    // Each slot is taken by exactly one thread (the queue hands out each position once);
    // the lock only lets the borrow checker see that.
    let slots: Vec<Mutex<Option<(usize, &mut T)>>> =
        order.into_iter().map(|x| Mutex::new(Some(x))).collect();
    let next = AtomicUsize::new(0);
    // One taker per thread, each a job of its own: an idle thread steals one and works
    // the queue beside the caller; a busy one never gets to it, and then the caller's
    // taker empties the queue and the others find nothing left (no thread waits for
    // another to become free, as `rayon::broadcast` would).
    use rayon::prelude::*;
    let per_thread: Vec<Vec<(usize, R)>> = (0..rayon::current_num_threads().min(n))
        .into_par_iter()
        .with_max_len(1)
        .map(|_| {
            let mut done = Vec::new();
            while let Some(slot) = slots.get(next.fetch_add(1, Ordering::Relaxed)) {
                let taken = slot.lock().unwrap_or_else(|e| e.into_inner()).take();
                if let Some((i, item)) = taken {
                    done.push((i, f(item)));
                }
            }
            done
        })
        .collect();
    let mut out: Vec<Option<R>> = (0..n).map(|_| None).collect();
    for (i, r) in per_thread.into_iter().flatten() {
        out[i] = Some(r);
    }
    out.into_iter().flatten().collect()
}

/// [`map_mut_largest_first`] over shared items.
pub fn map_largest_first<T, R, W, F>(items: &[T], weight: W, f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    W: Fn(&T) -> usize,
    F: Fn(&T) -> R + Sync,
{
    let mut refs: Vec<&T> = items.iter().collect();
    map_mut_largest_first(&mut refs, |t| weight(t), |t| f(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_in_the_items_order_whatever_their_weights() {
        for n in [0, 1, 2, 3, 17, 500] {
            let items: Vec<u64> = (0..n).map(|i| (i * 7919) % 97).collect();
            let want: Vec<u64> = items.iter().map(|x| x * 3 + 1).collect();
            let got = map_largest_first(&items, |x| *x as usize, |x| x * 3 + 1);
            assert_eq!(got, want, "{n}");
            let by_position = map_largest_first(&items, |_| 0, |x| x * 3 + 1);
            assert_eq!(by_position, want, "{n}");
        }
    }

    #[test]
    fn every_item_is_changed_once() {
        let mut items: Vec<(u32, u32)> = (0..300).map(|i| (i, 0)).collect();
        let seen = map_mut_largest_first(
            &mut items,
            |(i, _)| (*i as usize * 31) % 53,
            |(i, n)| {
                *n += 1;
                *i
            },
        );
        assert_eq!(seen, (0..300).collect::<Vec<u32>>());
        assert!(items.iter().all(|(_, n)| *n == 1));
    }

    #[test]
    fn the_largest_items_start_first() {
        // With a pool of one thread the queue's order is the order the items run in.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .expect("a pool");
        let items = [3usize, 50, 7, 50, 1, 90];
        let started = Mutex::new(Vec::new());
        pool.install(|| {
            map_largest_first(&items, |x| *x, |x| started.lock().unwrap().push(*x));
        });
        assert_eq!(started.into_inner().unwrap(), vec![90, 50, 50, 7, 3, 1]);
    }

    #[test]
    fn pool_threads_get_at_least_the_main_threads_default_stack() {
        assert!(pool_stack_size() >= 8 << 20);
        assert!(pool_stack_size() <= 256 << 20);
    }
}
