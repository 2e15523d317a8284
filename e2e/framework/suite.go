/*
Copyright 2026 The Spillway Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package framework

import (
	"context"
	"path/filepath"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spillway-dev/spillway/e2e/lab"
)

// StartSuiteLab is how every suite's BeforeSuite begins: the binaries the
// suites run are built (once per test binary), then the suite's lab of specs
// (lab.ParseClusterSpecs's list) starts on the suite's own port block.
func StartSuiteLab(ctx context.Context, suite string, portBase int, specs string) (*lab.Lab, error) {
	if _, err := Binaries(); err != nil {
		return nil, err
	}
	parsed, err := lab.ParseClusterSpecs(specs)
	if err != nil {
		return nil, err
	}
	return lab.StartForSuite(ctx, suite, portBase, parsed, false)
}

// Member is a lab cluster by name and a client of its API server.
func Member(l *lab.Lab, name string) (*lab.Cluster, client.Client, error) {
	c, err := l.Cluster(name)
	if err != nil {
		return nil, nil, err
	}
	cl, err := Client(c)
	return c, cl, err
}

// FleetIdentity is the identity the example fleet commits for a cluster, in
// clusters/<name>/install under the repository's root.
func FleetIdentity(root, name string) (Identity, error) {
	return IdentityOf(filepath.Join(root, "clusters", name, "install"))
}

// PeeringOnly keeps a config folder's ForeignCluster and ResourceOffer, for
// the suites whose specs create their own namespaces and workloads.
func PeeringOnly(o *unstructured.Unstructured) bool {
	return o.GetKind() == "ForeignCluster" || o.GetKind() == "ResourceOffer"
}
