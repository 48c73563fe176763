//! What one JSON patch may build (`--max-patch-bytes`): every value it inserts
//! (`add`, `replace`), copies or moves is measured as compact JSON before it is cloned,
//! all operations of the patch together, and the measuring stops where the budget
//! does. Forty `copy` operations of a value into itself would double it forty times;
//! here they stop at the limit, having built no more than it. Also the depth a value
//! may end at: a `move` into a deep path adds depth without adding bytes, and deep
//! values are what overflow a thread's stack when dropped or written.
//!
//! evanphx/json-patch has a copy limit too (`AccumulatedCopySizeLimit`), off by
//! default: Cluster API and the operator apply patches without it, so a Go process
//! grows until the machine stops it. The limit here is our own.

use serde_json::Value;

use crate::limits::{over_limit, Limit, Limits};

/// The deepest level a patched value may end at (the root is level 0). Inputs nest
/// at most 128 levels (the JSON reader's limit; YAML's is 60).
pub const MAX_DEPTH: usize = 256;

/// The bytes one patch application has built so far, against its limit.
pub struct Budget {
    limit: u64,
    used: u64,
}

impl Budget {
    /// A budget of the process's `--max-patch-bytes`.
    pub fn current() -> Budget {
        Budget::new(Limits::current().patch_bytes)
    }

    pub fn new(limit: u64) -> Budget {
        Budget { limit, used: 0 }
    }

    /// Charge `v`, about to be placed `level` levels deep (its key's depth): its size
    /// counts against what is left, and none of it may end deeper than [`MAX_DEPTH`].
    /// Measured without allocating, in at most "what is left" steps.
    pub fn charge(&mut self, v: &Value, level: usize) -> Result<(), String> {
        let left = self.limit - self.used.min(self.limit);
        match measure(v, left, MAX_DEPTH.saturating_sub(level)) {
            Ok(n) => {
                self.used += n;
                Ok(())
            }
            Err(Over::Bytes) => Err(format!(
                "the values this patch builds: {}",
                over_limit(Limit::PatchBytes, self.limit, None)
            )),
            Err(Over::Depth) => Err(format!(
                "the value would end more than {MAX_DEPTH} levels deep (a patched object may nest at most {MAX_DEPTH} levels)"
            )),
        }
    }
}

#[derive(Debug, PartialEq)]
enum Over {
    Bytes,
    Depth,
}

/// The compact JSON size of `v` (a string counted without its escapes, a number as
/// its digits), if it is at most `budget` bytes and at most `depth` levels deep
/// below its own level. An explicit stack: no recursion however deep `v` is.
fn measure(v: &Value, budget: u64, depth: usize) -> Result<u64, Over> {
    // Most values a patch adds are scalars: no stack for them.
    if let Some(n) = scalar_len(v) {
        return if n > budget { Err(Over::Bytes) } else { Ok(n) };
    }
    let mut size: u64 = 0;
    let mut stack: Vec<(&Value, usize)> = vec![(v, 0)];
    while let Some((v, d)) = stack.pop() {
        if d > depth {
            return Err(Over::Depth);
        }
        size += match v {
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {
                scalar_len(v).unwrap_or(0)
            }
            Value::Array(a) => {
                stack.extend(a.iter().map(|x| (x, d + 1)));
                // Brackets and commas.
                2 + a.len().saturating_sub(1) as u64
            }
            Value::Object(m) => {
                stack.extend(m.values().map(|x| (x, d + 1)));
                // Braces, each key quoted with its colon, and commas.
                2 + m.keys().map(|k| k.len() as u64 + 3).sum::<u64>()
                    + m.len().saturating_sub(1) as u64
            }
        };
        if size > budget {
            return Err(Over::Bytes);
        }
    }
    Ok(size)
}

/// The compact JSON size of a scalar; `None` for a list or a map.
fn scalar_len(v: &Value) -> Option<u64> {
    Some(match v {
        Value::Null => 4,
        Value::Bool(b) => 4 + u64::from(!b),
        Value::Number(n) => number_len(n),
        Value::String(s) => s.len() as u64 + 2,
        Value::Array(_) | Value::Object(_) => return None,
    })
}

/// Digits of an integer; a float at its longest shortest form.
fn number_len(n: &serde_json::Number) -> u64 {
    if let Some(u) = n.as_u64() {
        u.checked_ilog10().map_or(1, |l| u64::from(l) + 1)
    } else if let Some(i) = n.as_i64() {
        u64::from(i.unsigned_abs().checked_ilog10().map_or(1, |l| l + 1)) + 1
    } else {
        24
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sizes_are_compact_json_lengths() {
        for v in [
            json!(null),
            json!(true),
            json!(false),
            json!(0),
            json!(7),
            json!(-12),
            json!(18446744073709551615u64),
            json!("abc"),
            json!([]),
            json!([1, "x", null]),
            json!({}),
            json!({"a": {"bc": [true, {"d": 1}]}, "e": ""}),
        ] {
            let text = serde_json::to_string(&v).unwrap();
            assert_eq!(measure(&v, u64::MAX, 100), Ok(text.len() as u64), "{text}");
        }
    }

    #[test]
    fn the_budget_and_the_depth_stop_the_measuring() {
        let v = json!({"a": [1, 2, 3]});
        assert_eq!(measure(&v, 12, 9), Err(Over::Bytes));
        assert_eq!(measure(&v, 13, 9), Ok(13));
        assert_eq!(measure(&v, 100, 1), Err(Over::Depth));
        assert_eq!(measure(&v, 100, 2), Ok(13));
        // A value 100,000 levels deep is refused without recursing into it.
        let mut deep = json!(1);
        for _ in 0..100_000 {
            deep = Value::Array(vec![deep]);
        }
        assert_eq!(measure(&deep, u64::MAX, 256), Err(Over::Depth));
        // Dropping it is recursive: take it apart level by level.
        while let Value::Array(mut a) = deep {
            deep = a.pop().unwrap_or(Value::Null);
        }
    }

    #[test]
    fn a_budget_adds_up_over_charges() {
        let mut b = Budget::new(20);
        let v = json!("0123456789"); // 12 bytes
        b.charge(&v, 1).unwrap();
        let e = b.charge(&v, 1).unwrap_err();
        assert!(
            e.contains("over the JSON patch value limit of 20 bytes")
                && e.contains("--max-patch-bytes"),
            "{e}"
        );
        let e = Budget::new(1000)
            .charge(&json!([[1]]), MAX_DEPTH - 1)
            .unwrap_err();
        assert!(e.contains("256 levels deep"), "{e}");
    }
}
