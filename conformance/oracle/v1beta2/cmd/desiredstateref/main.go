// desiredstateref: the desired state that Cluster API's own topology code computes for one
// cluster.x-k8s.io/v1beta2 Cluster with spec.topology, offline, after Cluster API's own
// admission of its inputs. It is the oracle of conformance/topology-v1beta2.sh, which
// compares `capi-render render --stdout` with it, of conformance/impact.sh (--impact), and
// of conformance/admission.sh (--admit-only: refusals).
//
//	desiredstateref [--crds FILE [--field-validation strict|warn]] [--admit-only] [--capi-version v1.14.2] -f FILE [-f FILE]...
//	desiredstateref --impact [--crds FILE] [--capi-version v1.14.2] -f FILE... --against FILE...
//
// (--impact: the rollout impact of a change, conformance/impact.sh's oracle; impact.go.)
//
// The files hold one topology Cluster, its ClusterClass and the class's templates (any
// order; `---`-separated YAML). What runs is CAPI's code, pinned in go.mod:
//   - admission (admit.go), as when the API server with Cluster API v1.14.2's webhooks
//     creates each ClusterClass, then the Cluster: with --crds (the CRDs of the core
//     provider, src/admission/crds-v1.14.2.yaml), the API server's handling of the CRD
//     through apiextensions-apiserver's own code (unknown fields refused under field
//     validation Strict, the default, or pruned with a warning under Warn; structural
//     defaulting; the OpenAPI schema, list types and CEL rules through the CRD's own
//     strategy and rest.BeforeCreate); the Cluster's defaulting webhook
//     (admission.Cluster.Default: the "v" version prefix, variable defaulting and
//     validation) through controller-runtime's defaulter handler, its JSON patch applied;
//     the validating webhooks (admission.ClusterClass and admission.Cluster ValidateCreate,
//     the Cluster's with a client holding the reconciled classes). A refusal exits 1 with
//     the API server's message; --admit-only prints `admitted` (warnings on stderr) and
//     stops there;
//   - the ClusterClass controller's inline-variable status (status.variables, one "inline"
//     definition per spec.variables entry; this is the only step written here, mirroring
//     internal/controllers/clusterclass, which a module outside CAPI cannot import), with
//     observedGeneration and the VariablesReady condition set as after a reconcile;
//   - a cluster.x-k8s.io/v1beta1 Cluster or ClusterClass converted to v1beta2 by the
//     conversion webhook's own functions (core/webhooks/conversion), as the API server
//     serves it to the webhooks and the v1beta2 controllers;
//   - the blueprint as the topology controller's getBlueprint builds it (templates looked
//     up by the class's templateRefs in the class's namespace);
//   - exp/topology/desiredstate's Generator (patch engine included; no runtime client:
//     classes with external patches are refused before it runs);
//   - with --capi-version (the core provider the tree installs, which must be this
//     oracle's CAPI release, v1.14.2) and a cluster.x-k8s.io/v1beta1 input Cluster, the generated CAPI objects
//     (Cluster, MachineDeployment, MachinePool, MachineHealthCheck) converted back to
//     v1beta1 by the conversion webhook's own functions (ConvertFrom: ...HubToV1Beta1), as
//     the API server serves them to a v1beta1 client. A reference's apiVersion comes from
//     the input (the version of the kind's template). The `cluster.x-k8s.io/conversion-data`
//     annotation these functions add (a JSON copy of the v1beta2 object, for a lossless
//     round trip through the API server) is removed: it is storage bookkeeping, not desired
//     state, and capi-render does not write it.
//
// The feature gates are those Cluster API's topology needs: ClusterTopology, MachinePool,
// MachineTaintPropagation on; RuntimeSDK on only with a runtime extension (runtime.go).
// Templates are not admitted (their providers' CRDs and webhooks are not Cluster API's).
//
// The management cluster's CRDs are the one input that the files cannot give: the
// generator reads the ControlPlane CRD's contract labels. The oracle gives every kind of
// the input (and each template's object kind) a CRD whose contract label is the version
// of its apiVersion: `cluster.x-k8s.io/v1beta2: v1beta2` for a .../v1beta2 apiVersion,
// `cluster.x-k8s.io/v1beta1: <version>` otherwise.
//
// The output is the desired objects as YAML documents, without what is no desired state
// (status, resourceVersion, a null creationTimestamp, owner references without a UID),
// which is also what `capi-render render` leaves out.
package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/yaml"

	clusterv1beta1 "sigs.k8s.io/cluster-api/api/core/v1beta1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/controllers/clustercache"
	"sigs.k8s.io/cluster-api/core/webhooks/conversion"
	"sigs.k8s.io/cluster-api/exp/topology/desiredstate"
	"sigs.k8s.io/cluster-api/exp/topology/scope"
	"sigs.k8s.io/cluster-api/feature"
	"sigs.k8s.io/cluster-api/util/cache"
	"sigs.k8s.io/cluster-api/util/contract"
)

func main() {
	var files, against []string
	inputVersion, impact := false, false
	args := os.Args[1:]
	for i := 0; i < len(args); i++ {
		if args[i] == "-f" && i+1 < len(args) {
			files = append(files, args[i+1])
			i++
			continue
		}
		if args[i] == "--impact" {
			impact = true
			continue
		}
		if args[i] == "--against" && i+1 < len(args) {
			against = append(against, args[i+1])
			i++
			continue
		}
		if args[i] == "--capi-version" && i+1 < len(args) {
			if args[i+1] != "v1.14.2" {
				fail(fmt.Errorf("--capi-version %s: this oracle is Cluster API v1.14.2", args[i+1]))
			}
			inputVersion = true
			i++
			continue
		}
		if j, ok := runtimeFlag(args, i); ok {
			i = j
			continue
		}
		if j, ok := admitFlag(args, i); ok {
			i = j
			continue
		}
		fail(fmt.Errorf("usage: desiredstateref [--crds FILE [--field-validation strict|warn]] [--admit-only] [--capi-version v1.14.2] [--extension NAME=URL --extension-ca FILE] -f FILE [-f FILE]...\n" +
			"       desiredstateref --impact [--crds FILE] [--capi-version v1.14.2] -f FILE... --against FILE..."))
	}
	var out []byte
	var err error
	if impact {
		out, err = runImpact(files, against, inputVersion)
	} else {
		out, err = run(files, inputVersion)
	}
	if err != nil {
		fail(err)
	}
	os.Stdout.Write(out)
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "Error: %v\n", err)
	os.Exit(1)
}

func readObjects(files []string) ([]*unstructured.Unstructured, error) {
	var objs []*unstructured.Unstructured
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			u := map[string]interface{}{}
			if err := dec.Decode(&u); err != nil {
				if err.Error() == "EOF" {
					break
				}
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			if len(u) == 0 {
				continue
			}
			objs = append(objs, &unstructured.Unstructured{Object: u})
		}
	}
	return objs, nil
}

// toTyped decodes an admitted Cluster or ClusterClass into its Go type. With --crds the CRD
// stage (admit.go) has already refused or pruned every unknown field; without it, a field
// the Go type does not know is pruned here with a warning (field validation Warn).
func toTyped(u *unstructured.Unstructured, into interface{}) error {
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u.Object, into, true); err != nil {
		fmt.Fprintf(os.Stderr, "Warning: %s %s/%s: %v (pruned)\n", u.GetKind(), u.GetNamespace(), u.GetName(), err)
		return runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into)
	}
	return nil
}

func run(files []string, inputVersion bool) ([]byte, error) {
	g, err := generate(files, inputVersion)
	if err != nil {
		return nil, err
	}
	if admitOpts.only {
		return []byte("admitted\n"), nil
	}
	return render(g.desired, g.v1beta1Out)
}

// generated is one input's desired state and what it was computed from.
type generated struct {
	cluster    *clusterv1.Cluster
	class      *clusterv1.ClusterClass
	desired    *scope.ClusterState
	client     client.Client // the CRDs
	v1beta1Out bool
}

func generate(files []string, inputVersion bool) (*generated, error) {
	ctx := context.Background()
	if err := feature.MutableGates.Set("ClusterTopology=true,MachinePool=true,MachineTaintPropagation=true,RuntimeSDK=false"); err != nil {
		return nil, err
	}
	objs, err := readObjects(files)
	if err != nil {
		return nil, err
	}
	// Runtime extensions (ExtensionConfigs among the inputs): Cluster API's runtime
	// client, and the RuntimeSDK gate on.
	rc, objs, err := setupRuntime(ctx, objs, fake.NewClientBuilder().Build())
	if err != nil {
		return nil, err
	}
	if rc != nil {
		if err := feature.MutableGates.Set("RuntimeSDK=true"); err != nil {
			return nil, err
		}
	}

	// The inputs: the Cluster, the ClusterClasses, the templates.
	var clusterU *unstructured.Unstructured
	var classUs []*unstructured.Unstructured
	templates := map[string]*unstructured.Unstructured{}
	gvks := map[schema.GroupVersionKind]bool{}
	for _, u := range objs {
		if u.GetNamespace() == "" {
			u.SetNamespace("default")
		}
		gvk := u.GroupVersionKind()
		switch {
		case gvk.Group == clusterv1.GroupVersion.Group && gvk.Kind == "Cluster":
			if clusterU != nil {
				return nil, fmt.Errorf("more than one Cluster")
			}
			clusterU = u
		case gvk.Group == clusterv1.GroupVersion.Group && gvk.Kind == "ClusterClass":
			classUs = append(classUs, u)
		default:
			templates[key(gvk.GroupKind(), u.GetNamespace(), u.GetName())] = u
			gvks[gvk] = true
			gvks[gvk.GroupVersion().WithKind(strings.TrimSuffix(gvk.Kind, "Template"))] = true
		}
	}

	// Admission (admit.go): each ClusterClass, the ClusterClass controller's status, then
	// the Cluster against the reconciled classes.
	adm, err := newAdmitter()
	if err != nil {
		return nil, err
	}
	classes := map[string]*clusterv1.ClusterClass{}
	var classObjs []client.Object
	for _, u := range classUs {
		cc, err := adm.admitClass(ctx, u)
		if err != nil {
			return nil, err
		}
		reconcileClass(cc)
		if rc != nil {
			if err := reconcileVariables(ctx, rc, cc); err != nil {
				return nil, err
			}
		}
		classes[cc.Namespace+"/"+cc.Name] = cc
		classObjs = append(classObjs, cc.DeepCopy())
	}
	if clusterU == nil {
		return nil, fmt.Errorf("no Cluster with spec.topology")
	}
	classSch := runtime.NewScheme()
	_ = clusterv1.AddToScheme(classSch)
	classClient := fake.NewClientBuilder().WithScheme(classSch).WithObjects(classObjs...).Build()
	cluster, err := adm.admitCluster(ctx, clusterU, classClient)
	if err != nil {
		return nil, err
	}
	if admitOpts.only {
		return &generated{cluster: cluster}, nil
	}
	v1beta1Out := inputVersion && clusterU.GroupVersionKind().Version == "v1beta1"
	if !cluster.Spec.Topology.IsDefined() {
		return nil, fmt.Errorf("no Cluster with spec.topology")
	}
	classNS := cluster.Spec.Topology.ClassRef.Namespace
	if classNS == "" {
		classNS = cluster.Namespace
	}
	clusterClass := classes[classNS+"/"+cluster.Spec.Topology.ClassRef.Name]
	if clusterClass == nil {
		return nil, fmt.Errorf("ClusterClass %s/%s not found", classNS, cluster.Spec.Topology.ClassRef.Name)
	}
	for _, p := range clusterClass.Spec.Patches {
		if p.External != nil && rc == nil {
			return nil, fmt.Errorf("ClusterClass %s has external patch %q: needs a runtime extension", clusterClass.Name, p.Name)
		}
	}

	// The current state of a Cluster being created, as the topology controller's
	// getCurrentState leaves it on the first reconcile: no objects yet.
	s := scope.New(cluster)
	s.Current.ControlPlane = &scope.ControlPlaneState{}
	s.Current.MachineDeployments = map[string]*scope.MachineDeploymentState{}
	s.Current.MachinePools = map[string]*scope.MachinePoolState{}
	bp, err := blueprint(cluster, clusterClass, templates)
	if err != nil {
		return nil, err
	}
	s.Blueprint = bp

	sch := runtime.NewScheme()
	_ = apiextensionsv1.AddToScheme(sch)
	_ = clusterv1.AddToScheme(sch)
	var crds []client.Object
	seen := map[string]bool{}
	for gvk := range gvks {
		name := contract.CalculateCRDName(gvk.Group, gvk.Kind)
		if seen[name] {
			continue
		}
		seen[name] = true
		crd := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if gvk.Version == "v1beta2" {
			crd.Labels = map[string]string{"cluster.x-k8s.io/v1beta2": gvk.Version}
		} else {
			crd.Labels = map[string]string{"cluster.x-k8s.io/v1beta1": gvk.Version}
		}
		crds = append(crds, crd)
	}
	c := fake.NewClientBuilder().WithScheme(sch).WithObjects(crds...).Build()

	// No workload cluster and no runtime extensions: the cluster cache is never asked for
	// a client (no MachinePool exists yet), the hook caches stay empty.
	gen, err := desiredstate.NewGenerator(c, noClusterCache{}, rc,
		cache.New[cache.HookEntry](ctx, time.Minute), cache.New[desiredstate.GenerateUpgradePlanCacheEntry](ctx, time.Minute))
	if err != nil {
		return nil, err
	}
	desired, err := gen.Generate(ctx, s)
	if err != nil {
		return nil, err
	}
	if v1beta1Out {
		versions := map[schema.GroupKind]string{}
		for gvk := range gvks {
			versions[gvk.GroupKind()] = gvk.GroupVersion().String()
		}
		conversion.SetAPIVersionGetter(func(_ context.Context, gk schema.GroupKind) (string, error) {
			if v, ok := versions[gk]; ok {
				return v, nil
			}
			return "", fmt.Errorf("no apiVersion for %s among the inputs", gk)
		})
	}
	return &generated{cluster: cluster, class: clusterClass, desired: desired, client: c, v1beta1Out: v1beta1Out}, nil
}

// toV1Beta1 converts a generated CAPI object to cluster.x-k8s.io/v1beta1 with the
// conversion webhook's own ConvertFrom functions, without the conversion-data annotation.
func toV1Beta1(o interface{}) (map[string]interface{}, error) {
	ctx := context.Background()
	var out interface{}
	var err error
	var kind string
	switch t := o.(type) {
	case *clusterv1.Cluster:
		d := &clusterv1beta1.Cluster{}
		err, out, kind = conversion.ConvertClusterHubToV1Beta1(ctx, t.DeepCopy(), d), d, "Cluster"
	case *clusterv1.MachineDeployment:
		d := &clusterv1beta1.MachineDeployment{}
		err, out, kind = conversion.ConvertMachineDeploymentHubToV1Beta1(ctx, t.DeepCopy(), d), d, "MachineDeployment"
	case *clusterv1.MachinePool:
		d := &clusterv1beta1.MachinePool{}
		err, out, kind = conversion.ConvertMachinePoolHubToV1Beta1(ctx, t.DeepCopy(), d), d, "MachinePool"
	case *clusterv1.MachineHealthCheck:
		d := &clusterv1beta1.MachineHealthCheck{}
		err, out, kind = conversion.ConvertMachineHealthCheckHubToV1Beta1(ctx, t.DeepCopy(), d), d, "MachineHealthCheck"
	default:
		return nil, fmt.Errorf("no v1beta1 conversion for %T", o)
	}
	if err != nil {
		return nil, err
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(out)
	if err != nil {
		return nil, err
	}
	m["apiVersion"], m["kind"] = clusterv1beta1.GroupVersion.String(), kind
	u := unstructured.Unstructured{Object: m}
	a := u.GetAnnotations()
	delete(a, "cluster.x-k8s.io/conversion-data")
	if len(a) == 0 {
		a = nil
	}
	u.SetAnnotations(a)
	return u.Object, nil
}

// noClusterCache stands for the management cluster's cache of workload cluster
// clients, which a Cluster being created never needs.
type noClusterCache struct{ clustercache.ClusterCache }

func decodeCluster(u *unstructured.Unstructured) (*clusterv1.Cluster, error) {
	c := &clusterv1.Cluster{}
	if u.GroupVersionKind().Version == "v1beta1" {
		old := &clusterv1beta1.Cluster{}
		if err := toTyped(u, old); err != nil {
			return nil, err
		}
		if err := conversion.ConvertClusterV1Beta1ToHub(context.Background(), old, c); err != nil {
			return nil, err
		}
		return c, nil
	}
	return c, toTyped(u, c)
}

func decodeClass(u *unstructured.Unstructured) (*clusterv1.ClusterClass, error) {
	cc := &clusterv1.ClusterClass{}
	if u.GroupVersionKind().Version == "v1beta1" {
		old := &clusterv1beta1.ClusterClass{}
		if err := toTyped(u, old); err != nil {
			return nil, err
		}
		if err := conversion.ConvertClusterClassV1Beta1ToHub(context.Background(), old, cc); err != nil {
			return nil, err
		}
		return cc, nil
	}
	return cc, toTyped(u, cc)
}

// reconcileClass sets the status the ClusterClass controller writes for a class whose
// variables are all inline.
func reconcileClass(cc *clusterv1.ClusterClass) {
	cc.Generation = 1
	cc.Status.ObservedGeneration = 1
	vars := make([]clusterv1.ClusterClassStatusVariable, 0, len(cc.Spec.Variables))
	for _, v := range cc.Spec.Variables {
		vars = append(vars, clusterv1.ClusterClassStatusVariable{
			Name:                v.Name,
			DefinitionsConflict: ptr.To(false),
			Definitions: []clusterv1.ClusterClassStatusVariableDefinition{{
				From:                      clusterv1.VariableDefinitionFromInline,
				Required:                  v.Required,
				DeprecatedV1Beta1Metadata: v.DeprecatedV1Beta1Metadata,
				Schema:                    v.Schema,
			}},
		})
	}
	sort.SliceStable(vars, func(i, j int) bool { return vars[i].Name < vars[j].Name })
	cc.Status.Variables = vars
	cc.Status.Conditions = []metav1.Condition{{
		Type: clusterv1.ClusterClassVariablesReadyCondition, Status: metav1.ConditionTrue,
		Reason: "VariablesReady", LastTransitionTime: metav1.Now(),
	}}
}

func key(gk schema.GroupKind, ns, name string) string {
	return gk.String() + "|" + ns + "/" + name
}

func blueprint(cluster *clusterv1.Cluster, cc *clusterv1.ClusterClass, templates map[string]*unstructured.Unstructured) (*scope.ClusterBlueprint, error) {
	get := func(ref clusterv1.ClusterClassTemplateReference, what string) (*unstructured.Unstructured, error) {
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err != nil {
			return nil, err
		}
		u := templates[key(schema.GroupKind{Group: gv.Group, Kind: ref.Kind}, cc.Namespace, ref.Name)]
		if u == nil {
			return nil, fmt.Errorf("failed to get %s for ClusterClass %s/%s: %s %s/%s not found", what, cc.Namespace, cc.Name, ref.Kind, cc.Namespace, ref.Name)
		}
		return u.DeepCopy(), nil
	}
	bp := &scope.ClusterBlueprint{
		Topology:           cluster.Spec.Topology,
		ClusterClass:       cc,
		MachineDeployments: map[string]*scope.MachineDeploymentBlueprint{},
		MachinePools:       map[string]*scope.MachinePoolBlueprint{},
	}
	var err error
	if bp.InfrastructureClusterTemplate, err = get(cc.Spec.Infrastructure.TemplateRef, "infrastructure cluster template"); err != nil {
		return nil, err
	}
	bp.ControlPlane = &scope.ControlPlaneBlueprint{}
	if bp.ControlPlane.Template, err = get(cc.Spec.ControlPlane.TemplateRef, "control plane template"); err != nil {
		return nil, err
	}
	if bp.HasControlPlaneInfrastructureMachine() {
		if bp.ControlPlane.InfrastructureMachineTemplate, err = get(cc.Spec.ControlPlane.MachineInfrastructure.TemplateRef, "control plane's machine template"); err != nil {
			return nil, err
		}
	}
	if bp.HasControlPlaneMachineHealthCheck() {
		bp.ControlPlane.HealthCheck = cc.Spec.ControlPlane.HealthCheck
	}
	for _, mdc := range cc.Spec.Workers.MachineDeployments {
		mdb := &scope.MachineDeploymentBlueprint{}
		mdc.Metadata.DeepCopyInto(&mdb.Metadata)
		if mdb.InfrastructureMachineTemplate, err = get(mdc.Infrastructure.TemplateRef, "infrastructure machine template"); err != nil {
			return nil, err
		}
		if mdb.BootstrapTemplate, err = get(mdc.Bootstrap.TemplateRef, "bootstrap config template"); err != nil {
			return nil, err
		}
		mdb.HealthCheck = mdc.HealthCheck
		bp.MachineDeployments[mdc.Class] = mdb
	}
	for _, mpc := range cc.Spec.Workers.MachinePools {
		mpb := &scope.MachinePoolBlueprint{}
		mpc.Metadata.DeepCopyInto(&mpb.Metadata)
		if mpb.InfrastructureMachinePoolTemplate, err = get(mpc.Infrastructure.TemplateRef, "InfrastructureMachinePoolTemplate"); err != nil {
			return nil, err
		}
		if mpb.BootstrapTemplate, err = get(mpc.Bootstrap.TemplateRef, "bootstrap config"); err != nil {
			return nil, err
		}
		bp.MachinePools[mpc.Class] = mpb
	}
	return bp, nil
}

func render(d *scope.ClusterState, v1beta1Out bool) ([]byte, error) {
	var objs []map[string]interface{}
	add := func(o interface{}, gvk schema.GroupVersionKind) error {
		if o == nil {
			return nil
		}
		var m map[string]interface{}
		switch t := o.(type) {
		case *unstructured.Unstructured:
			if t == nil {
				return nil
			}
			m = t.DeepCopy().Object
		default:
			var err error
			if v1beta1Out {
				if m, err = toV1Beta1(o); err != nil {
					return err
				}
				break
			}
			if m, err = runtime.DefaultUnstructuredConverter.ToUnstructured(o); err != nil {
				return err
			}
			m["apiVersion"], m["kind"] = gvk.GroupVersion().String(), gvk.Kind
		}
		objs = append(objs, clean(m))
		return nil
	}
	gv := clusterv1.GroupVersion
	var errs []error
	keep := func(err error) { errs = append(errs, err) }
	keep(add(d.Cluster, gv.WithKind("Cluster")))
	keep(add(d.InfrastructureCluster, schema.GroupVersionKind{}))
	if d.ControlPlane != nil {
		keep(add(d.ControlPlane.Object, schema.GroupVersionKind{}))
		keep(add(d.ControlPlane.InfrastructureMachineTemplate, schema.GroupVersionKind{}))
		if d.ControlPlane.MachineHealthCheck != nil {
			keep(add(d.ControlPlane.MachineHealthCheck, gv.WithKind("MachineHealthCheck")))
		}
	}
	for _, md := range d.MachineDeployments {
		keep(add(md.Object, gv.WithKind("MachineDeployment")))
		keep(add(md.BootstrapTemplate, schema.GroupVersionKind{}))
		keep(add(md.InfrastructureMachineTemplate, schema.GroupVersionKind{}))
		if md.MachineHealthCheck != nil {
			keep(add(md.MachineHealthCheck, gv.WithKind("MachineHealthCheck")))
		}
	}
	for _, mp := range d.MachinePools {
		keep(add(mp.Object, gv.WithKind("MachinePool")))
		keep(add(mp.BootstrapObject, schema.GroupVersionKind{}))
		keep(add(mp.InfrastructureMachinePoolObject, schema.GroupVersionKind{}))
	}
	for _, e := range errs {
		if e != nil {
			return nil, e
		}
	}
	sortKey := func(m map[string]interface{}) string {
		u := unstructured.Unstructured{Object: m}
		return fmt.Sprintf("%s|%s|%s", u.GetKind(), u.GetNamespace(), u.GetName())
	}
	sort.SliceStable(objs, func(i, j int) bool { return sortKey(objs[i]) < sortKey(objs[j]) })
	var buf bytes.Buffer
	for i, m := range objs {
		if i > 0 {
			buf.WriteString("---\n")
		}
		y, err := yaml.Marshal(m)
		if err != nil {
			return nil, err
		}
		buf.Write(y)
	}
	return buf.Bytes(), nil
}

func clean(m map[string]interface{}) map[string]interface{} {
	delete(m, "status")
	md, _ := m["metadata"].(map[string]interface{})
	if md == nil {
		return m
	}
	delete(md, "resourceVersion")
	if v, ok := md["creationTimestamp"]; ok && v == nil {
		delete(md, "creationTimestamp")
	}
	if refs, ok := md["ownerReferences"].([]interface{}); ok {
		var kept []interface{}
		for _, r := range refs {
			if rm, ok := r.(map[string]interface{}); ok {
				if uid, _ := rm["uid"].(string); uid != "" {
					kept = append(kept, r)
				}
			}
		}
		if len(kept) == 0 {
			delete(md, "ownerReferences")
		} else {
			md["ownerReferences"] = kept
		}
	}
	return m
}
