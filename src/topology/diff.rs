//! `diff -u -N` (GNU diffutils) output for the plan's `.diff` files.

use similar::{DiffOp, TextDiff};

/// The fixed time printed in the file headers (GNU diff prints the files' mtimes;
/// capi-render is deterministic).
pub const HEADER_TIME: &str = "1970-01-01 00:00:00.000000000 +0000";

fn range(start: usize, len: usize) -> String {
    // GNU: "start,len"; a single line is just "start"; an empty range names the line before.
    match len {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        _ => format!("{},{len}", start + 1),
    }
}

/// Unified diff with 3 lines of context of `old` and `new` named `from` / `to`; empty
/// when equal.
pub fn unified(from: &str, to: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    let d = TextDiff::configure()
        .algorithm(similar::Algorithm::Myers)
        .diff_lines(old, new);
    let old_lines: Vec<&str> = split_lines(old);
    let new_lines: Vec<&str> = split_lines(new);
    let mut out = format!("--- {from}\t{HEADER_TIME}\n+++ {to}\t{HEADER_TIME}\n");
    for group in d.grouped_ops(3) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let os = first.old_range().start;
        let oe = last.old_range().end;
        let ns = first.new_range().start;
        let ne = last.new_range().end;
        out.push_str(&format!(
            "@@ -{} +{} @@\n",
            range(os, oe - os),
            range(ns, ne - ns)
        ));
        for op in &group {
            match *op {
                DiffOp::Equal { old_index, len, .. } => {
                    for l in old_lines.get(old_index..old_index + len).unwrap_or(&[]) {
                        line(&mut out, ' ', l);
                    }
                }
                DiffOp::Delete {
                    old_index, old_len, ..
                } => {
                    for l in old_lines.get(old_index..old_index + old_len).unwrap_or(&[]) {
                        line(&mut out, '-', l);
                    }
                }
                DiffOp::Insert {
                    new_index, new_len, ..
                } => {
                    for l in new_lines.get(new_index..new_index + new_len).unwrap_or(&[]) {
                        line(&mut out, '+', l);
                    }
                }
                DiffOp::Replace {
                    old_index,
                    old_len,
                    new_index,
                    new_len,
                } => {
                    for l in old_lines.get(old_index..old_index + old_len).unwrap_or(&[]) {
                        line(&mut out, '-', l);
                    }
                    for l in new_lines.get(new_index..new_index + new_len).unwrap_or(&[]) {
                        line(&mut out, '+', l);
                    }
                }
            }
        }
    }
    out
}

fn split_lines(s: &str) -> Vec<&str> {
    s.split_inclusive('\n').collect()
}

fn line(out: &mut String, tag: char, l: &str) {
    out.push(tag);
    out.push_str(l);
    if !l.ends_with('\n') {
        out.push_str("\n\\ No newline at end of file\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_is_empty() {
        assert_eq!(unified("a", "b", "x\n", "x\n"), "");
    }

    #[test]
    fn gnu_hunks_and_missing_newline() {
        let d = unified("a", "b", "1\n2\n3", "1\n2\n3\n4");
        assert_eq!(
            d,
            format!("--- a\t{HEADER_TIME}\n+++ b\t{HEADER_TIME}\n@@ -1,3 +1,4 @@\n 1\n 2\n-3\n\\ No newline at end of file\n+3\n+4\n\\ No newline at end of file\n")
        );
    }
}
