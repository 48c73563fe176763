//go:build !capirender_runtime

package main

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimeclient "sigs.k8s.io/cluster-api/exp/runtime/client"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Without the Runtime SDK build (conformance/oracle-runtime.sh): no flags, and an
// ExtensionConfig among the inputs is an error.
func runtimeFlag(_ []string, i int) (int, bool) { return i, false }

func setupRuntime(_ context.Context, objs []*unstructured.Unstructured, _ client.Client) (runtimeclient.Client, []*unstructured.Unstructured, error) {
	for _, u := range objs {
		if u.GetKind() == "ExtensionConfig" {
			return nil, nil, fmt.Errorf("ExtensionConfig %s: this oracle has no runtime client (build it with conformance/oracle-runtime.sh)", u.GetName())
		}
	}
	return nil, objs, nil
}

func reconcileVariables(_ context.Context, _ runtimeclient.Client, _ *clusterv1.ClusterClass) error {
	return fmt.Errorf("no runtime client")
}
