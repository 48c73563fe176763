package main

// Admission: what the API server and Cluster API v1.14.2 run when a ClusterClass or a
// Cluster is created (kubectl create / apply), in the API server's order:
//
//  1. decoding (apiextensions-apiserver's schemaCoercingDecoder, customresource_handler.go
//     unstructuredSchemaCoercer.apply, with the structural schema of the object's version):
//     unknown fields (metadata, pruning, embedded objects) — under field validation Strict a
//     refusal naming each, under Warn pruned with a warning each — then structural
//     defaulting (the codec's unstructuredDefaulter);
//  2. the mutating webhooks, on the object converted to v1beta2 (the webhooks serve
//     v1beta2, matchPolicy Equivalent): the Cluster's (admission.Cluster.Default, through
//     controller-runtime's own defaulter handler, whose JSON patch is applied to the
//     object; the ClusterClass has none); the result converted back to the request's
//     version;
//  3. rest.BeforeCreate with the CRD's own customResourceStrategy (customresource.NewStrategy):
//     ObjectMeta, the OpenAPI schema, list types, CEL rules (x-kubernetes-validations), then
//     ObjectMeta's generic validation;
//  4. the validating webhooks (admission.ClusterClass / admission.Cluster ValidateCreate,
//     through controller-runtime's validator handler) on the object converted to v1beta2.
//
// A refusal is printed as the API server returns it: `Kind.cluster.x-k8s.io "name" is
// invalid: ...` (apierrors.NewInvalid), prefixed by `admission webhook "NAME" denied the
// request: ` for a webhook, and for unknown fields under Strict the strict decoding error
// followed by one `unknown field "PATH"` line per field.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured/unstructuredscheme"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	cradmission "sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	"sigs.k8s.io/yaml"

	clusterv1beta1 "sigs.k8s.io/cluster-api/api/core/v1beta1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/core/webhooks/admission"
	"sigs.k8s.io/cluster-api/core/webhooks/conversion"
)

// admitOptions: the command line's admission settings.
type admitOptions struct {
	crds       string // the CRDs file (--crds); "" runs no CRD stage
	fieldValid string // --field-validation: Strict (default) or Warn
	only       bool   // --admit-only
}

var admitOpts = admitOptions{fieldValid: "Strict"}

// admitFlag reads the admission flags at args[i]: the index of the flag's last word.
func admitFlag(args []string, i int) (int, bool) {
	switch {
	case args[i] == "--admit-only":
		admitOpts.only = true
		return i, true
	case args[i] == "--crds" && i+1 < len(args):
		admitOpts.crds = args[i+1]
		return i + 1, true
	case args[i] == "--field-validation" && i+1 < len(args):
		switch strings.ToLower(args[i+1]) {
		case "strict":
			admitOpts.fieldValid = "Strict"
		case "warn":
			admitOpts.fieldValid = "Warn"
		default:
			fail(fmt.Errorf("--field-validation %s: strict or warn", args[i+1]))
		}
		return i + 1, true
	}
	return i, false
}

// warnf prints an API server warning (kubectl's `Warning: ` lines).
func warnf(format string, a ...interface{}) {
	fmt.Fprintf(os.Stderr, "Warning: "+format+"\n", a...)
}

// servedVersion is the API server's handling of one served version of a CRD.
type servedVersion struct {
	kind       schema.GroupVersionKind
	structural *structuralschema.Structural
	strategy   rest.RESTCreateStrategy
}

// admitter runs admission with the CRDs of --crds.
type admitter struct {
	versions map[schema.GroupVersionKind]*servedVersion
	scheme   *runtime.Scheme
}

func newAdmitter() (*admitter, error) {
	sch := runtime.NewScheme()
	if err := clusterv1.AddToScheme(sch); err != nil {
		return nil, err
	}
	a := &admitter{versions: map[schema.GroupVersionKind]*servedVersion{}, scheme: sch}
	if admitOpts.crds == "" {
		return a, nil
	}
	data, err := os.ReadFile(admitOpts.crds)
	if err != nil {
		return nil, err
	}
	for _, d := range bytes.Split(data, []byte("\n---\n")) {
		if len(bytes.TrimSpace(d)) == 0 {
			continue
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal(d, &crd); err != nil {
			return nil, fmt.Errorf("%s: %w", admitOpts.crds, err)
		}
		if crd.Kind != "CustomResourceDefinition" {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if !v.Served || v.Schema == nil {
				continue
			}
			sv, err := serve(&crd, v)
			if err != nil {
				return nil, fmt.Errorf("%s: %s %s: %w", admitOpts.crds, crd.Name, v.Name, err)
			}
			a.versions[sv.kind] = sv
		}
	}
	return a, nil
}

// serve builds what customresource_handler.go getOrCreateServingInfoFor builds for a
// version: the structural schema (defaults pruned) and the storage's strategy.
func serve(crd *apiextensionsv1.CustomResourceDefinition, v apiextensionsv1.CustomResourceDefinitionVersion) (*servedVersion, error) {
	internal := &apiextensions.CustomResourceValidation{}
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v.Schema, internal, nil); err != nil {
		return nil, err
	}
	s, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, err
	}
	s = s.DeepCopy()
	if err := structuraldefaulting.PruneDefaults(s); err != nil {
		return nil, err
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, err
	}
	var status *apiextensions.CustomResourceSubresourceStatus
	var statusValidator apiservervalidation.SchemaValidator
	if v.Subresources != nil && v.Subresources.Status != nil {
		status = &apiextensions.CustomResourceSubresourceStatus{}
		if st, ok := internal.OpenAPIV3Schema.Properties["status"]; ok {
			if statusValidator, _, err = apiservervalidation.NewSchemaValidator(&st); err != nil {
				return nil, err
			}
		}
	}
	var scale *apiextensions.CustomResourceSubresourceScale
	if v.Subresources != nil && v.Subresources.Scale != nil {
		scale = &apiextensions.CustomResourceSubresourceScale{}
		if err := apiextensionsv1.Convert_v1_CustomResourceSubresourceScale_To_apiextensions_CustomResourceSubresourceScale(v.Subresources.Scale, scale, nil); err != nil {
			return nil, err
		}
	}
	kind := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
	strategy := customresource.NewStrategy(unstructuredscheme.NewUnstructuredObjectTyper(),
		crd.Spec.Scope == apiextensionsv1.NamespaceScoped, kind, validator, statusValidator, s, status, scale, v.SelectableFields)
	return &servedVersion{kind: kind, structural: s, strategy: strategy}, nil
}

// refusal is an API server error: its message, then the lines that follow it.
type refusal struct {
	who   string // "Kind namespace/name"
	msg   string
	lines []string
}

func (r *refusal) Error() string {
	return r.who + ": " + strings.Join(append([]string{r.msg}, r.lines...), "\n")
}

func who(u *unstructured.Unstructured) string {
	return fmt.Sprintf("%s %s/%s", u.GetKind(), u.GetNamespace(), u.GetName())
}

// asRequest is the object as the API server decodes a request body: whole numbers as
// int64 (k8s.io/apimachinery/pkg/util/json), not float64.
func asRequest(u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	j, err := json.Marshal(u.Object)
	if err != nil {
		return nil, err
	}
	var m map[string]interface{}
	if err := utiljson.Unmarshal(j, &m); err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// decode is step 1, in place: unknown fields, nulls, embedded metadata, defaults.
func (a *admitter) decode(u *unstructured.Unstructured) error {
	sv := a.versions[u.GroupVersionKind()]
	if sv == nil {
		return nil
	}
	kind, apiVersion := u.GetKind(), u.GetAPIVersion()
	meta, found, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(u.Object, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return &refusal{who: who(u), msg: err.Error()}
	}
	unknown = append(unknown, pruning.PruneWithOptions(u.Object, sv.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, sv.structural)
	ferr, embedded := schemaobjectmeta.CoerceWithOptions(nil, u.Object, sv.structural, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
	if ferr != nil {
		return &refusal{who: who(u), msg: ferr.Error()}
	}
	unknown = append(unknown, embedded...)
	u.SetKind(kind)
	u.SetAPIVersion(apiVersion)
	if found {
		if err := schemaobjectmeta.SetObjectMeta(u.Object, meta); err != nil {
			return err
		}
	}
	if len(unknown) > 0 {
		if admitOpts.fieldValid == "Strict" {
			r := &refusal{who: who(u)}
			var errs []string
			for _, f := range unknown {
				errs = append(errs, fmt.Sprintf("unknown field %q", f))
			}
			gvk := u.GroupVersionKind()
			r.msg = fmt.Sprintf("%s in version %q cannot be handled as a %s: strict decoding error: %s", gvk.Kind, gvk.Version, gvk.Kind, strings.Join(errs, ", "))
			r.lines = errs
			return r
		}
		for _, f := range unknown {
			warnf("%s: unknown field %q", who(u), f)
		}
	}
	structuraldefaulting.Default(u.Object, sv.structural)
	return nil
}

// validate is step 3: rest.BeforeCreate with the version's strategy, on a copy (the
// strategy clears status and sets the generation of what it stores).
func (a *admitter) validate(u *unstructured.Unstructured) error {
	sv := a.versions[u.GroupVersionKind()]
	if sv == nil {
		return nil
	}
	obj := u.DeepCopy()
	// What the store fills in before BeforeCreate (rest.FillObjectMetaSystemFields).
	obj.SetCreationTimestamp(metav1.Now())
	obj.SetUID(types.UID("00000000-0000-0000-0000-000000000000"))
	ctx := genericapirequest.WithNamespace(context.Background(), obj.GetNamespace())
	if err := rest.BeforeCreate(sv.strategy, ctx, obj); err != nil {
		return &refusal{who: who(u), msg: err.Error()}
	}
	return nil
}

// webhookRequest is the AdmissionReview request of a create of the v1beta2 object.
func webhookRequest(obj runtime.Object, u *unstructured.Unstructured) (cradmission.Request, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return cradmission.Request{}, err
	}
	gvk := clusterv1.GroupVersion.WithKind(u.GetKind())
	return cradmission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID:       types.UID("admission"),
		Kind:      metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind},
		Name:      u.GetName(),
		Namespace: u.GetNamespace(),
		Operation: admissionv1.Create,
		Object:    runtime.RawExtension{Raw: raw},
	}}, nil
}

// answer turns a webhook's response into the API server's result: a refusal, or its
// warnings printed.
func answer(u *unstructured.Unstructured, name string, resp cradmission.Response) error {
	for _, w := range resp.Warnings {
		warnf("%s", w)
	}
	if resp.Allowed {
		return nil
	}
	msg := "admission webhook " + fmt.Sprintf("%q", name) + " denied the request"
	if resp.Result != nil && resp.Result.Message != "" {
		msg += ": " + resp.Result.Message
	} else if resp.Result != nil && resp.Result.Reason != "" {
		msg += ": " + string(resp.Result.Reason)
	} else {
		msg += " without explanation"
	}
	return &refusal{who: who(u), msg: msg}
}

// toHub is the v1beta2 form of a request object (the conversion webhook's functions for a
// v1beta1 one) as unstructured JSON.
func toHub(u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	if u.GroupVersionKind().Version != "v1beta1" {
		return u.DeepCopy(), nil
	}
	var hub runtime.Object
	var err error
	switch u.GetKind() {
	case "Cluster":
		hub, err = decodeCluster(u.DeepCopy())
	default:
		hub, err = decodeClass(u.DeepCopy())
	}
	if err != nil {
		return nil, err
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(hub)
	if err != nil {
		return nil, err
	}
	m["apiVersion"], m["kind"] = clusterv1.GroupVersion.String(), u.GetKind()
	return &unstructured.Unstructured{Object: m}, nil
}

// admitClass admits one ClusterClass and returns it as v1beta2.
func (a *admitter) admitClass(ctx context.Context, in *unstructured.Unstructured) (*clusterv1.ClusterClass, error) {
	u, err := asRequest(in)
	if err != nil {
		return nil, err
	}
	if err := a.decode(u); err != nil {
		return nil, err
	}
	if err := a.validate(u); err != nil {
		return nil, err
	}
	hub, err := toHub(u)
	if err != nil {
		return nil, err
	}
	cc := &clusterv1.ClusterClass{}
	if err := toTyped(hub, cc); err != nil {
		return nil, err
	}
	req, err := webhookRequest(cc, u)
	if err != nil {
		return nil, err
	}
	resp := cradmission.WithValidator[*clusterv1.ClusterClass](a.scheme, &admission.ClusterClass{}).Handle(ctx, req)
	if err := answer(u, "validation.clusterclass.cluster.x-k8s.io", resp); err != nil {
		return nil, err
	}
	return cc, nil
}

// admitCluster admits the Cluster against the classes in c (reconciled), and returns it as
// v1beta2, defaulted.
func (a *admitter) admitCluster(ctx context.Context, in *unstructured.Unstructured, c client.Reader) (*clusterv1.Cluster, error) {
	u, err := asRequest(in)
	if err != nil {
		return nil, err
	}
	if err := a.decode(u); err != nil {
		return nil, err
	}
	// The mutating webhook sees the v1beta2 form; its patch applies to that form.
	hub, err := toHub(u)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(hub.Object)
	if err != nil {
		return nil, err
	}
	req, err := webhookRequest(hub, u)
	if err != nil {
		return nil, err
	}
	req.Object.Raw = raw
	webhook := &admission.Cluster{Client: c}
	resp := cradmission.WithDefaulter[*clusterv1.Cluster](a.scheme, webhook).Handle(ctx, req)
	if err := answer(u, "default.cluster.cluster.x-k8s.io", resp); err != nil {
		return nil, err
	}
	if len(resp.Patches) > 0 {
		p, err := json.Marshal(resp.Patches)
		if err != nil {
			return nil, err
		}
		patch, err := jsonpatch.DecodePatch(p)
		if err != nil {
			return nil, err
		}
		if raw, err = patch.Apply(raw); err != nil {
			return nil, err
		}
	}
	hub = &unstructured.Unstructured{}
	if err := utiljson.Unmarshal(raw, &hub.Object); err != nil {
		return nil, err
	}
	cluster := &clusterv1.Cluster{}
	if err := toTyped(hub, cluster); err != nil {
		return nil, err
	}
	// Back in the request's version for the schema (the conversion webhook's functions).
	stored := hub
	if u.GroupVersionKind().Version == "v1beta1" {
		old := &clusterv1beta1.Cluster{}
		if err := conversion.ConvertClusterHubToV1Beta1(ctx, cluster.DeepCopy(), old); err != nil {
			return nil, err
		}
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(old)
		if err != nil {
			return nil, err
		}
		m["apiVersion"], m["kind"] = clusterv1beta1.GroupVersion.String(), "Cluster"
		stored = &unstructured.Unstructured{Object: m}
	}
	if stored, err = asRequest(stored); err != nil {
		return nil, err
	}
	if sv := a.versions[stored.GroupVersionKind()]; sv != nil {
		structuraldefaulting.Default(stored.Object, sv.structural)
	}
	if err := a.validate(stored); err != nil {
		return nil, err
	}
	if req, err = webhookRequest(cluster, u); err != nil {
		return nil, err
	}
	resp = cradmission.WithValidator[*clusterv1.Cluster](a.scheme, webhook).Handle(ctx, req)
	if err := answer(u, "validation.cluster.cluster.x-k8s.io", resp); err != nil {
		return nil, err
	}
	return cluster, nil
}
