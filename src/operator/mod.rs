//! Declarative providers: provider custom resources rendered as cluster-api-operator
//! v0.28.0 would apply them (shared/spec/operator.md).

pub mod customize;
