//! The files a lock lists ([`Outputs`]), held as spans of one text, and their
//! [`Owned`] views.

use std::ops::Range;

/// A file the lock says capi-render wrote: its path in OUT and the sha256 of the
/// bytes written. A later run removes it only while it still has those bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Owned<'a> {
    pub path: &'a str,
    pub sha256: &'a str,
}

/// The files a lock lists ([`Owned`]s, in the lock's order), held as spans of one
/// text: the lock's own text when its items were read on all cores, so that a
/// 100,000-Cluster lock (1.5 million files) is not 3 million strings.
#[derive(Clone, Default)]
pub struct Outputs {
    text: String,
    spans: Vec<Span>,
    /// `text` is a whole lock and `spans` are its `outputs` items in the writer's
    /// shape, back to back ([`Outputs::from_spans`]).
    exact: bool,
}

/// Where an item's path and sha256 are in [`Outputs`]'s text.
#[derive(Clone, Copy)]
pub(in crate::gitops::lock) struct Span {
    pub(super) path: usize,
    pub(super) path_len: usize,
    pub(super) sum: usize,
    pub(super) sum_len: usize,
}

impl Outputs {
    /// Items as spans of `text`, each on character boundaries (checked): `text` is a
    /// whole lock and `spans` its `outputs` items, each exactly `- path: P` /
    /// `  sha256: S` with plain scalars, back to back (what the all-cores reader
    /// accepts), so that [`Outputs::written_items`] may hand out their text.
    /// Checked on all cores (1.5 million items at 100,000 Clusters).
    pub(super) fn from_spans(text: String, spans: Vec<Span>) -> Option<Outputs> {
        use rayon::prelude::*;
        let on =
            |at: usize, len: usize| at.checked_add(len).and_then(|e| text.get(at..e)).is_some();
        spans
            .par_iter()
            .with_min_len(1 << 14)
            .all(|s| on(s.path, s.path_len) && on(s.sum, s.sum_len))
            .then_some(Outputs {
                text,
                spans,
                exact: true,
            })
    }

    /// The whole lock these outputs were read from, when they were read in the
    /// writer's shape ([`Outputs::from_spans`]); `None` for outputs read in order or
    /// built item by item.
    pub fn lock_text(&self) -> Option<&str> {
        self.exact.then_some(self.text.as_str())
    }

    /// Where items `range` are in [`Outputs::lock_text`], when those bytes are exactly
    /// what the writer writes for them ([`super::output_entry`]: each path one it
    /// writes plain, each item right after the one before): a lock listing the same
    /// items at that place has the same bytes there. `None` otherwise, or when empty.
    pub fn written_items(&self, range: Range<usize>) -> Option<Range<usize>> {
        const PATH: usize = "- path: ".len();
        const SUM: usize = "\n  sha256: ".len();
        let spans = self.spans.get(range)?;
        let first = spans.first()?;
        if !self.exact {
            return None;
        }
        let start = first.path.checked_sub(PATH)?;
        let mut end = start;
        for s in spans {
            // What `plain` adds to the reader's checks of a path: its first byte and
            // its length; a sum the reader accepts is always plain.
            let lead = self.text.as_bytes().get(s.path).copied().unwrap_or(b'-');
            if s.path != end + PATH
                || s.path_len >= 80
                || !(lead.is_ascii_alphanumeric() || lead == b'.')
                || s.sum != s.path + s.path_len + SUM
                || s.sum_len != 64
            {
                return None;
            }
            end = s.sum + 65;
        }
        self.text.get(start..end).map(|_| start..end)
    }

    /// One more item (its path and sum are copied into the text).
    pub fn push(&mut self, path: &str, sha256: &str) {
        self.exact = false;
        let at = self.text.len();
        self.text.push_str(path);
        self.text.push_str(sha256);
        self.spans.push(Span {
            path: at,
            path_len: path.len(),
            sum: at + path.len(),
            sum_len: sha256.len(),
        });
    }

    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    fn item(&self, s: &Span) -> Owned<'_> {
        Owned {
            path: &self.text[s.path..s.path + s.path_len],
            sha256: &self.text[s.sum..s.sum + s.sum_len],
        }
    }

    pub fn get(&self, i: usize) -> Option<Owned<'_>> {
        self.spans.get(i).map(|s| self.item(s))
    }

    pub fn iter(&self) -> OutputsIter<'_> {
        OutputsIter {
            outputs: self,
            spans: self.spans.iter(),
        }
    }

    /// Every item, borrowed (what the writer, the checker and the incremental run
    /// take as the previous outputs), in order; made on all cores.
    pub fn views(&self) -> Vec<Owned<'_>> {
        use rayon::prelude::*;
        self.spans
            .par_iter()
            .with_min_len(1 << 14)
            .map(|s| self.item(s))
            .collect()
    }
}

/// [`Outputs::iter`].
pub struct OutputsIter<'a> {
    outputs: &'a Outputs,
    spans: std::slice::Iter<'a, Span>,
}

impl<'a> Iterator for OutputsIter<'a> {
    type Item = Owned<'a>;
    fn next(&mut self) -> Option<Owned<'a>> {
        self.spans.next().map(|s| self.outputs.item(s))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.spans.size_hint()
    }
}

impl ExactSizeIterator for OutputsIter<'_> {}

impl<'a> IntoIterator for &'a Outputs {
    type Item = Owned<'a>;
    type IntoIter = OutputsIter<'a>;
    fn into_iter(self) -> OutputsIter<'a> {
        self.iter()
    }
}

impl<P: AsRef<str>, S: AsRef<str>> FromIterator<(P, S)> for Outputs {
    fn from_iter<I: IntoIterator<Item = (P, S)>>(items: I) -> Self {
        let mut o = Outputs::default();
        for (p, s) in items {
            o.push(p.as_ref(), s.as_ref());
        }
        o
    }
}

impl PartialEq for Outputs {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for Outputs {}

impl std::fmt::Debug for Outputs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// `pieces` end to end, each copied on the pool into its place (a 100,000-Cluster lock's
/// 1.5 million spans are 48 MB).
pub(super) fn concat_on_all_cores<T: Copy + Send + Sync>(pieces: &[Vec<T>]) -> Vec<T> {
    use rayon::prelude::*;
    let total = pieces.iter().map(Vec::len).sum();
    let mut all = Vec::with_capacity(total);
    let mut rest = &mut all.spare_capacity_mut()[..total];
    let mut places = Vec::with_capacity(pieces.len());
    for p in pieces {
        let (here, after) = rest.split_at_mut(p.len());
        places.push(here);
        rest = after;
    }
    places.into_par_iter().zip(pieces).for_each(|(to, from)| {
        for (t, f) in to.iter_mut().zip(from) {
            t.write(*f);
        }
    });
    // SAFETY: the places split the first `total` slots of the spare capacity end to end
    // and each was written in full above (a place is as long as its piece).
    unsafe { all.set_len(total) };
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_concatenated_on_all_cores_are_the_pieces_end_to_end() {
        let shapes: [&[usize]; 6] = [
            &[],
            &[0],
            &[3],
            &[0, 5, 0, 0, 2],
            &[1000, 1, 70_000, 0, 3],
            &[17; 40],
        ];
        let mut next = 0u64;
        for lens in shapes {
            let pieces: Vec<Vec<(u64, usize)>> = lens
                .iter()
                .map(|&n| {
                    (0..n)
                        .map(|i| {
                            next = next.wrapping_mul(6364136223846793005).wrapping_add(1);
                            (next, i)
                        })
                        .collect()
                })
                .collect();
            assert_eq!(concat_on_all_cores(&pieces), pieces.concat(), "{lens:?}");
        }
    }
}
