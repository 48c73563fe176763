//! provider
