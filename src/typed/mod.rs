//! Side effects of clusterctl's typed round trips (placeholder).
