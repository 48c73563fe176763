package clusterclass

// Added by capi-render's conformance (conformance/oracle-runtime.sh) to a scratch copy of
// the Cluster API v1.14.2 module, never to the released code: the ClusterClass
// controller's own reconcileVariables, run without a manager, so the oracle's
// status.variables include what the class's extensions discover.

import (
	"context"
	"time"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimeclient "sigs.k8s.io/cluster-api/exp/runtime/client"
	"sigs.k8s.io/cluster-api/util/cache"
)

// ReconcileVariablesForOracle sets cc.Status.Variables as the controller does.
func ReconcileVariablesForOracle(ctx context.Context, rc runtimeclient.Client, cc *clusterv1.ClusterClass) error {
	r := &Reconciler{
		RuntimeClient:          rc,
		discoverVariablesCache: cache.New[runtimeclient.CallExtensionCacheEntry](ctx, time.Minute),
	}
	_, err := r.reconcileVariables(ctx, &scope{clusterClass: cc})
	return err
}
