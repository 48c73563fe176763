// Package deps pins the reference libraries our Go oracles call, at the versions
// clusterctl v1.10.10's go.mod uses. It has no code of its own.
package deps

import (
	_ "github.com/drone/envsubst/v2"
	_ "github.com/drone/envsubst/v2/parse"
	_ "k8s.io/api/admissionregistration/v1"
	_ "k8s.io/api/apps/v1"
	_ "k8s.io/api/rbac/v1"
	_ "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	_ "k8s.io/apimachinery/pkg/runtime"
	_ "k8s.io/apimachinery/pkg/api/resource"
	_ "sigs.k8s.io/yaml"
)
