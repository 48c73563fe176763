package main

import (
	clusterv1 "sigs.k8s.io/cluster-api/api/v1beta1"
	kcpv1 "sigs.k8s.io/cluster-api/controlplane/kubeadm/api/v1beta1"
	expv1 "sigs.k8s.io/cluster-api/exp/api/v1beta1"
)

// capiRoots are the Cluster API kinds clusterctl v1.10 round-trips. The models of later
// k8s.io releases leave them out (conformance/regen-typed.sh builds them with
// k8s_roots.go.in in place of this file): only clusterctl v1.10's template and topology
// code converts them.
func capiRoots() []rootDef {
	return []rootDef{
		// clusterctl converts template Clusters to find their ClusterClass (R8.4).
		{"cluster.x-k8s.io/v1beta1", clusterv1.Cluster{}},
		// `topology plan`'s dry-run client stores the kinds of clusterctl's scheme typed
		// (topology.md R0.3): the objects the topology controller creates.
		{"cluster.x-k8s.io/v1beta1", clusterv1.MachineDeployment{}},
		{"cluster.x-k8s.io/v1beta1", clusterv1.MachineHealthCheck{}},
		{"cluster.x-k8s.io/v1beta1", expv1.MachinePool{}},
		{"controlplane.cluster.x-k8s.io/v1beta1", kcpv1.KubeadmControlPlane{}},
		// Input templates of a kind in clusterctl's scheme are decoded as the dry-run
		// client stores them (a wrong JSON type is clusterctl's panic).
		{"controlplane.cluster.x-k8s.io/v1beta1", kcpv1.KubeadmControlPlaneTemplate{}},
	}
}
