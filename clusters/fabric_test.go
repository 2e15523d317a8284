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

package clusters_test

import (
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// TestFabricComponent builds the example install overlay that turns the
// network fabric on, and checks what a gateway needs on a real node.
func TestFabricComponent(t *testing.T) {
	g := NewWithT(t)
	b := build(t, filepath.Join("examples", "fabric-install"))
	var dep appsv1.Deployment
	mustDecodeStrict(t, b.find(t, "Deployment", "liqo", "spillway-controller"), &dep)
	spec := dep.Spec.Template.Spec
	g.Expect(spec.HostNetwork).To(BeTrue(), "gateways listen on the node's address and program its routes")
	g.Expect(dep.Spec.Strategy.Type).To(Equal(appsv1.RecreateDeploymentStrategyType), "two managers on a node would fight over gateway ports")
	c := spec.Containers[0]
	g.Expect(c.Args).To(ContainElements("--gateway-address=$(GATEWAY_ADDRESS)", "--pod-cidr=$(POD_CIDR)", "--virtual-kubelet-port=10260"))
	g.Expect(c.SecurityContext.Capabilities.Add).To(ContainElement(corev1.Capability("NET_ADMIN")))
	g.Expect(c.VolumeMounts).To(ContainElement(HaveField("MountPath", "/dev/net/tun")))

	env := expectArgVarsInEnv(g, c)
	var identity corev1.ConfigMap
	mustDecodeStrict(t, b.find(t, "ConfigMap", "liqo", "spillway-cluster-identity"), &identity)
	for _, key := range []string{"GATEWAY_ADDRESS", "POD_CIDR"} {
		g.Expect(env[key].ValueFrom.ConfigMapKeyRef.Name).To(Equal("spillway-cluster-identity"))
		g.Expect(identity.Data).To(HaveKey(key), "the example identity must carry every key the component reads")
	}
	ports := map[int32]string{}
	for _, p := range c.Ports {
		ports[p.ContainerPort] = p.Name
	}
	g.Expect(ports).NotTo(HaveKey(int32(10250)), "the node's kubelet holds 10250 on the host network")
	g.Expect(ports).To(HaveKeyWithValue(int32(10260), "kubelet"))
}
