//! The GitOps tree: a `RenderSet` written to a directory with kustomizations, a lock
//! file, atomic replacement, pruning of files we wrote, and `--check` drift diffs.
