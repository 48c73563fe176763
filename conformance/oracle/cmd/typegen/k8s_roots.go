//go:build k8sonly

package main

// capiRoots: none in the models of the k8s.io releases after v0.32 (see capi_roots.go).
func capiRoots() []rootDef { return nil }
