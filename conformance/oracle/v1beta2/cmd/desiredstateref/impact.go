// impact: `desiredstateref --impact -f BASE... --against HEAD...`, the oracle of
// conformance/impact.sh. For one topology Cluster before (-f) and after (--against) a
// change, what Cluster API v1.14.2's own code decides for the machines of its control
// plane and each MachineDeployment, printed as JSON ({action, controlPlane,
// machineDeployments[], machinePools[]}, each part with `name`, `action`, `reasons`).
//
// What runs:
//   - both sides' desired state: exp/topology/desiredstate's Generator (see main.go);
//   - the template rotation of the topology controller (reconcileReferencedTemplate in
//     core/reconcilers/topology/cluster): a referenced template whose spec changes gets a
//     new name; one that does not keeps the name it has. Written here, as a comparison of
//     the two desired specs: CAPI decides it with a server-side-apply dry run against the
//     API server (HasSpecChanges), which both sides' objects, computed by the same code,
//     pass through alike;
//   - MachineDeployment: the MachineSet the MachineDeployment controller made from the
//     base side's template, matched against the changed MachineDeployment by
//     mdutil.FindNewAndOldMachineSets (MachineTemplateUpToDate): no matching MachineSet is
//     a `rollout` (its log messages are the reasons); a matching one whose template or
//     replicas differ is `in-place` (the MachineSet controller propagates them);
//   - KubeadmControlPlane: a control plane Machine made by the base side's KCP, as KCP
//     makes it (controlplane/kubeadm/pkg/desiredstate: ComputeDesiredMachine,
//     ComputeDesiredKubeadmConfig, ComputeDesiredInfraMachine), an init machine and a join
//     machine, checked by controlplane/kubeadm/pkg.UpToDate against the changed KCP: a
//     machine not up to date is a `rollout`; an up-to-date one whose desired Machine
//     (ComputeDesiredMachine on the existing one: labels, annotations, deletion
//     timeouts, taints, readiness gates) differs, or changed replicas, is `in-place`;
//   - MachinePool: Cluster API has no up-to-date check (the infrastructure provider
//     replaces instances); the rule of the MachinePool contract is written here: a
//     changed spec.template.spec.version is `rollout`, a changed bootstrap object or
//     InfraMachinePool spec `unknown` (the provider decides), other template or replica
//     changes `in-place`.
//
// A part on one side only is `rollout` (its machines are created or deleted); a Cluster
// missing from --against is deleted ({"action": "delete"}). The InPlaceUpdates feature
// gate is off, as it is by default.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/blang/semver/v4"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	controlplanev1beta1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta1"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	kcppkg "sigs.k8s.io/cluster-api/controlplane/kubeadm/pkg"
	kcpdesired "sigs.k8s.io/cluster-api/controlplane/kubeadm/pkg/desiredstate"
	kcpconversion "sigs.k8s.io/cluster-api/controlplane/kubeadm/webhooks/conversion"
	"sigs.k8s.io/cluster-api/core/reconcilers/machinedeployment/mdutil"
	"sigs.k8s.io/cluster-api/exp/topology/desiredstate"
	"sigs.k8s.io/cluster-api/exp/topology/scope"
)

type partImpact struct {
	Name    string   `json:"name"`
	Action  string   `json:"action"`
	Reasons []string `json:"reasons,omitempty"`
}

type upgradePlan struct {
	ControlPlane []string `json:"controlPlane"`
	Workers      []string `json:"workers"`
}

type clusterImpact struct {
	Action             string       `json:"action"`
	UpgradePlan        *upgradePlan `json:"upgradePlan,omitempty"`
	UpgradeError       string       `json:"upgradeError,omitempty"`
	ControlPlane       *partImpact  `json:"controlPlane,omitempty"`
	MachineDeployments []partImpact `json:"machineDeployments"`
	MachinePools       []partImpact `json:"machinePools"`
}

func runImpact(base, head []string, inputVersion bool) ([]byte, error) {
	b, err := generate(base, inputVersion)
	if err != nil {
		return nil, fmt.Errorf("base side: %w", err)
	}
	out := clusterImpact{Action: "update", MachineDeployments: []partImpact{}, MachinePools: []partImpact{}}
	headObjs, err := readObjects(head)
	if err != nil {
		return nil, err
	}
	hasCluster := false
	for _, u := range headObjs {
		hasCluster = hasCluster || (u.GroupVersionKind().Group == clusterv1.GroupVersion.Group && u.GetKind() == "Cluster")
	}
	if !hasCluster {
		out.Action = "delete"
		return marshal(out)
	}
	h, err := generate(head, inputVersion)
	if err != nil {
		return nil, fmt.Errorf("head side: %w", err)
	}
	ctx := context.Background()
	// Both sides' templates are in the management cluster (a template that does not
	// rotate keeps its base name).
	for _, t := range append(templatesOf(b.desired), templatesOf(h.desired)...) {
		if t == nil {
			continue
		}
		if err := h.client.Create(ctx, t.DeepCopy()); err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, err
		}
	}
	now := metav1.NewTime(time.Now())
	if b.desired.ControlPlane != nil && h.desired.ControlPlane != nil {
		cp, err := controlPlane(ctx, b, h, now)
		if err != nil {
			return nil, err
		}
		out.ControlPlane = cp
	}
	for _, name := range keys(b.desired.MachineDeployments, h.desired.MachineDeployments) {
		bs, hs := b.desired.MachineDeployments[name], h.desired.MachineDeployments[name]
		if bs == nil || hs == nil {
			out.MachineDeployments = append(out.MachineDeployments, oneSide(name, bs == nil))
			continue
		}
		out.MachineDeployments = append(out.MachineDeployments, machineDeployment(name, bs.Object, hs.Object,
			[2]*unstructured.Unstructured{bs.InfrastructureMachineTemplate, hs.InfrastructureMachineTemplate},
			[2]*unstructured.Unstructured{bs.BootstrapTemplate, hs.BootstrapTemplate}, now))
	}
	for _, name := range keys(b.desired.MachinePools, h.desired.MachinePools) {
		bs, hs := b.desired.MachinePools[name], h.desired.MachinePools[name]
		if bs == nil || hs == nil {
			out.MachinePools = append(out.MachinePools, oneSide(name, bs == nil))
			continue
		}
		out.MachinePools = append(out.MachinePools, machinePool(name, bs.Object, hs.Object,
			!sameSpec(bs.BootstrapObject, hs.BootstrapObject) || !sameSpec(bs.InfrastructureMachinePoolObject, hs.InfrastructureMachinePoolObject)))
	}
	out.UpgradePlan, out.UpgradeError = plan(ctx, b, h)
	return marshal(out)
}

// plan: the chained upgrade of a version change through the class's kubernetesVersions,
// by the topology controller's own functions, from the control plane's and the oldest
// worker's version on the base side.
func plan(ctx context.Context, b, h *generated) (*upgradePlan, string) {
	versions := h.class.Spec.KubernetesVersions
	desired := h.cluster.Spec.Topology.Version
	if len(versions) == 0 || b.cluster.Spec.Topology.Version == desired || b.desired.ControlPlane == nil {
		return nil, ""
	}
	cp, _, _ := unstructured.NestedString(b.desired.ControlPlane.Object.Object, "spec", "version")
	minWorkers := ""
	consider := func(v string) {
		if v == "" {
			return
		}
		if minWorkers == "" {
			minWorkers = v
			return
		}
		a, errA := semver.ParseTolerant(v)
		m, errM := semver.ParseTolerant(minWorkers)
		if errA == nil && errM == nil && a.LT(m) {
			minWorkers = v
		}
	}
	for _, md := range b.desired.MachineDeployments {
		consider(md.Object.Spec.Template.Spec.Version)
	}
	for _, mp := range b.desired.MachinePools {
		consider(mp.Object.Spec.Template.Spec.Version)
	}
	cpPlan, wPlan, err := desiredstate.GetUpgradePlanFromClusterClassVersions(versions)(ctx, desired, cp, minWorkers)
	if err == nil {
		wPlan, err = desiredstate.DefaultAndValidateUpgradePlans(desired, cp, minWorkers, cpPlan, wPlan)
	}
	if err != nil {
		return nil, err.Error()
	}
	return &upgradePlan{ControlPlane: append([]string{}, cpPlan...), Workers: append([]string{}, wPlan...)}, ""
}

func marshal(v interface{}) ([]byte, error) {
	out, err := json.MarshalIndent(v, "", "  ")
	return append(out, '\n'), err
}

func keys[T any](a, b map[string]T) []string {
	seen := map[string]bool{}
	for k := range a {
		seen[k] = true
	}
	for k := range b {
		seen[k] = true
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func oneSide(name string, created bool) partImpact {
	if created {
		return partImpact{Name: name, Action: "rollout", Reasons: []string{"created"}}
	}
	return partImpact{Name: name, Action: "rollout", Reasons: []string{"deleted"}}
}

// templatesOf: the referenced templates of a desired state, which the management
// cluster holds once the topology controller has applied it.
func templatesOf(d *scope.ClusterState) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	if d.ControlPlane != nil && d.ControlPlane.InfrastructureMachineTemplate != nil {
		out = append(out, d.ControlPlane.InfrastructureMachineTemplate)
	}
	for _, md := range d.MachineDeployments {
		out = append(out, md.InfrastructureMachineTemplate, md.BootstrapTemplate)
	}
	return out
}

// sameSpec: the topology controller does not rotate (or, for a MachinePool's objects,
// does not change the spec of) a referenced object whose desired spec is unchanged.
func sameSpec(a, b *unstructured.Unstructured) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.GroupVersionKind() == b.GroupVersionKind() && reflect.DeepEqual(a.Object["spec"], b.Object["spec"])
}

// machineDeployment: the base side's MachineSet against the changed MachineDeployment.
func machineDeployment(name string, bmd, hmd *clusterv1.MachineDeployment, infra, bootstrap [2]*unstructured.Unstructured, now metav1.Time) partImpact {
	hmd = hmd.DeepCopy()
	hmd.Name = bmd.Name
	if sameSpec(infra[0], infra[1]) {
		hmd.Spec.Template.Spec.InfrastructureRef.Name = bmd.Spec.Template.Spec.InfrastructureRef.Name
	}
	if sameSpec(bootstrap[0], bootstrap[1]) && hmd.Spec.Template.Spec.Bootstrap.ConfigRef.IsDefined() {
		hmd.Spec.Template.Spec.Bootstrap.ConfigRef.Name = bmd.Spec.Template.Spec.Bootstrap.ConfigRef.Name
	}
	ms := &clusterv1.MachineSet{
		ObjectMeta: metav1.ObjectMeta{Name: bmd.Name + "-base", Namespace: bmd.Namespace,
			CreationTimestamp: metav1.NewTime(now.Add(-time.Hour))},
		Spec: clusterv1.MachineSetSpec{ClusterName: bmd.Spec.ClusterName, Replicas: bmd.Spec.Replicas,
			Template: *bmd.Spec.Template.DeepCopy()},
	}
	newMS, _, results, why := mdutil.FindNewAndOldMachineSets(hmd, []*clusterv1.MachineSet{ms}, now)
	if newMS == nil {
		reasons := append([]string{}, results[ms.Name].LogMessages...)
		if len(reasons) == 0 {
			reasons = []string{why}
		}
		return partImpact{Name: name, Action: "rollout", Reasons: reasons}
	}
	var reasons []string
	if !equality.Semantic.DeepEqual(ms.Spec.Template, hmd.Spec.Template) {
		reasons = append(reasons, "the machine template's in-place fields change")
	}
	if ptr.Deref(bmd.Spec.Replicas, 1) != ptr.Deref(hmd.Spec.Replicas, 1) {
		reasons = append(reasons, fmt.Sprintf("replicas %d, %d required", ptr.Deref(bmd.Spec.Replicas, 1), ptr.Deref(hmd.Spec.Replicas, 1)))
	}
	if len(reasons) > 0 {
		return partImpact{Name: name, Action: "in-place", Reasons: reasons}
	}
	return partImpact{Name: name, Action: "none"}
}

// machinePool: the MachinePool contract's rule (no Cluster API up-to-date check exists).
func machinePool(name string, bmp, hmp *clusterv1.MachinePool, objectsChanged bool) partImpact {
	switch {
	case bmp.Spec.Template.Spec.Version != hmp.Spec.Template.Spec.Version:
		return partImpact{Name: name, Action: "rollout", Reasons: []string{fmt.Sprintf("spec.template.spec.version %s, %s required", bmp.Spec.Template.Spec.Version, hmp.Spec.Template.Spec.Version)}}
	case objectsChanged:
		return partImpact{Name: name, Action: "unknown", Reasons: []string{"the bootstrap object or InfraMachinePool spec changes"}}
	}
	bt, ht := bmp.Spec.Template.DeepCopy(), hmp.Spec.Template.DeepCopy()
	ht.Spec.Bootstrap, ht.Spec.InfrastructureRef = bt.Spec.Bootstrap, bt.Spec.InfrastructureRef
	if !equality.Semantic.DeepEqual(bt, ht) || ptr.Deref(bmp.Spec.Replicas, 1) != ptr.Deref(hmp.Spec.Replicas, 1) {
		return partImpact{Name: name, Action: "in-place", Reasons: []string{"the machine template's metadata or fields, or replicas, change"}}
	}
	return partImpact{Name: name, Action: "none"}
}

func toKCP(u *unstructured.Unstructured) (*controlplanev1.KubeadmControlPlane, error) {
	kcp := &controlplanev1.KubeadmControlPlane{}
	switch u.GetAPIVersion() {
	case controlplanev1.GroupVersion.String():
		return kcp, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, kcp)
	case controlplanev1beta1.GroupVersion.String():
		old := &controlplanev1beta1.KubeadmControlPlane{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, old); err != nil {
			return nil, err
		}
		return kcp, kcpconversion.ConvertKubeadmControlPlaneV1Beta1ToHub(context.Background(), old, kcp)
	}
	return nil, nil
}

// controlPlane: a KubeadmControlPlane's init and join Machines, made from the base side,
// checked against the changed KCP.
func controlPlane(ctx context.Context, b, h *generated, now metav1.Time) (*partImpact, error) {
	bk, err := toKCP(b.desired.ControlPlane.Object)
	if err != nil {
		return nil, err
	}
	hk, err := toKCP(h.desired.ControlPlane.Object)
	if err != nil {
		return nil, err
	}
	if bk == nil || hk == nil {
		return &partImpact{Name: "control plane", Action: "unknown", Reasons: []string{"not a KubeadmControlPlane: its provider decides"}}, nil
	}
	hk.Name, hk.UID = bk.Name, bk.UID
	if sameSpec(b.desired.ControlPlane.InfrastructureMachineTemplate, h.desired.ControlPlane.InfrastructureMachineTemplate) {
		hk.Spec.MachineTemplate.Spec.InfrastructureRef.Name = bk.Spec.MachineTemplate.Spec.InfrastructureRef.Name
	}
	var reasons []string
	machineFields := false
	for i, join := range []bool{false, true} {
		machine, err := kcpdesired.ComputeDesiredMachine(bk, b.cluster, "", nil)
		if err != nil {
			return nil, err
		}
		machine.Name = fmt.Sprintf("%s-%d", bk.Name, i)
		machine.CreationTimestamp = metav1.NewTime(now.Add(-time.Hour))
		machine.Spec.InfrastructureRef = clusterv1.ContractVersionedObjectReference{
			APIGroup: bk.Spec.MachineTemplate.Spec.InfrastructureRef.APIGroup,
			Kind:     trimTemplate(bk.Spec.MachineTemplate.Spec.InfrastructureRef.Kind), Name: machine.Name}
		machine.Spec.Bootstrap.ConfigRef = clusterv1.ContractVersionedObjectReference{
			APIGroup: bootstrapv1.GroupVersion.Group, Kind: "KubeadmConfig", Name: machine.Name}
		kc, err := kcpdesired.ComputeDesiredKubeadmConfig(bk, b.cluster, join, machine.Name, nil)
		if err != nil {
			return nil, err
		}
		im, err := kcpdesired.ComputeDesiredInfraMachine(ctx, h.client, bk, b.cluster, machine.Name, nil)
		if err != nil {
			return nil, err
		}
		upToDate, res, err := kcppkg.UpToDate(ctx, h.client, h.cluster, machine, hk, &now,
			map[string]*unstructured.Unstructured{machine.Name: im}, map[string]*bootstrapv1.KubeadmConfig{machine.Name: kc})
		if err != nil {
			return nil, err
		}
		which := map[bool]string{false: "init machine", true: "join machine"}[join]
		if !upToDate {
			for _, m := range res.LogMessages {
				// The first line (a KubeadmConfig diff follows on the next ones).
				reasons = append(reasons, which+": "+strings.TrimSpace(strings.SplitN(m, "\n", 2)[0]))
			}
			continue
		}
		want, err := kcpdesired.ComputeDesiredMachine(hk, h.cluster, "", machine)
		if err != nil {
			return nil, err
		}
		if !equality.Semantic.DeepEqual(want.Labels, machine.Labels) || !equality.Semantic.DeepEqual(want.Annotations, machine.Annotations) ||
			!equality.Semantic.DeepEqual(want.Spec.Deletion, machine.Spec.Deletion) || !equality.Semantic.DeepEqual(want.Spec.Taints, machine.Spec.Taints) ||
			!equality.Semantic.DeepEqual(want.Spec.ReadinessGates, machine.Spec.ReadinessGates) {
			machineFields = true
		}
	}
	if len(reasons) > 0 {
		return &partImpact{Name: "control plane", Action: "rollout", Reasons: reasons}, nil
	}
	inPlace := machineFields
	if machineFields {
		reasons = append(reasons, "the Machines' in-place fields change (labels, annotations, deletion, taints, readiness gates)")
	}
	if ptr.Deref(bk.Spec.Replicas, 1) != ptr.Deref(hk.Spec.Replicas, 1) {
		inPlace = true
		reasons = append(reasons, fmt.Sprintf("replicas %d, %d required", ptr.Deref(bk.Spec.Replicas, 1), ptr.Deref(hk.Spec.Replicas, 1)))
	}
	// KCP updates CoreDNS in the workload cluster in place (UpdateCoreDNS), and its
	// machines do not compare the DNS settings (PrepareKubeadmConfigsForDiff).
	if !equality.Semantic.DeepEqual(bk.Spec.KubeadmConfigSpec.ClusterConfiguration.DNS, hk.Spec.KubeadmConfigSpec.ClusterConfiguration.DNS) {
		inPlace = true
		reasons = append(reasons, "clusterConfiguration.dns changes: KCP updates CoreDNS in the workload cluster")
	}
	if inPlace {
		return &partImpact{Name: "control plane", Action: "in-place", Reasons: reasons}, nil
	}
	return &partImpact{Name: "control plane", Action: "none"}, nil
}

func trimTemplate(kind string) string {
	if n := len(kind) - len(clusterv1.TemplateSuffix); n > 0 && kind[n:] == clusterv1.TemplateSuffix {
		return kind[:n]
	}
	return kind
}
