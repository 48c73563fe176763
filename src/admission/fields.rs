//! Fields an apiVersion does not declare: refused or pruned.
