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

package pod

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/spillway-dev/spillway/network"
	"github.com/spillway-dev/spillway/policies"
)

func localPod(opts ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "liqo-demo", Labels: map[string]string{"app": "web", "tier": "front"}},
		Spec: corev1.PodSpec{
			NodeName: "liqo-milan", SchedulerName: "default-scheduler", NodeSelector: map[string]string{"disk": "ssd"},
			Priority: ptr.To(int32(1000)), PriorityClassName: "high", HostNetwork: true, HostPID: true, HostIPC: true,
			ServiceAccountName: "builder",
			Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{}, PodAntiAffinity: &corev1.PodAntiAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{TopologyKey: "zone"}}}},
			Tolerations: []corev1.Toleration{policies.VirtualNodeToleration(), {Key: "gpu", Operator: corev1.TolerationOpExists}},
			Volumes:     []corev1.Volume{{Name: "kube-api-access-x1y2z"}, {Name: "data"}},
			Containers: []corev1.Container{{Name: "web", Image: "nginx",
				VolumeMounts: []corev1.VolumeMount{{Name: "kube-api-access-x1y2z"}, {Name: "data"}}}},
		},
	}
	for _, f := range opts {
		f(p)
	}
	return p
}

func withPreset(preset, labels string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Annotations = map[string]string{"liqo.io/anti-affinity-preset": preset}
		if labels != "" {
			p.Annotations["liqo.io/anti-affinity-labels"] = labels
		}
	}
}

func TestRemotePodSpecAppliesTheSeedMutations(t *testing.T) {
	g := NewWithT(t)
	spec := RemotePodSpec(localPod())
	g.Expect(spec.NodeName).To(BeEmpty())
	g.Expect(spec.NodeSelector).To(BeNil())
	g.Expect(spec.SchedulerName).To(BeEmpty())
	g.Expect(spec.Priority).To(BeNil())
	g.Expect(spec.PriorityClassName).To(BeEmpty())
	g.Expect(spec.HostNetwork || spec.HostPID || spec.HostIPC).To(BeFalse())
	g.Expect(spec.Affinity).To(BeNil(), "no preset: scheduling constraints are dropped")
	g.Expect(spec.ServiceAccountName).To(BeEmpty())
	g.Expect(spec.Tolerations).To(ConsistOf(corev1.Toleration{Key: "gpu", Operator: corev1.TolerationOpExists}))
	g.Expect(spec.Volumes).To(ConsistOf(corev1.Volume{Name: "data"}))
	g.Expect(spec.Containers[0].VolumeMounts).To(ConsistOf(corev1.VolumeMount{Name: "data"}))
}

// defaulted is the local pod as the consumer's API server stores it: its
// defaults filled in, and the NotReady tolerations of the namespace's policy.
func defaulted(p *corev1.Pod) {
	p.Spec.DNSPolicy, p.Spec.RestartPolicy = corev1.DNSClusterFirst, corev1.RestartPolicyAlways
	p.Spec.SecurityContext, p.Spec.EnableServiceLinks = &corev1.PodSecurityContext{}, ptr.To(true)
	p.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox:1.37"}}
	for _, c := range []*corev1.Container{&p.Spec.InitContainers[0], &p.Spec.Containers[0]} {
		c.TerminationMessagePath, c.TerminationMessagePolicy = "/dev/termination-log", corev1.TerminationMessageReadFile
		c.ImagePullPolicy = corev1.PullAlways
	}
	p.Spec.Tolerations, _ = policies.WithNotReadyPolicy(p.Spec.Tolerations, policies.NotReadyPolicy{})
}

func TestRemotePodSpecLeavesTheProviderWhatItFillsInItself(t *testing.T) {
	g := NewWithT(t)
	spec := RemotePodSpec(localPod(defaulted))
	g.Expect(spec.DNSPolicy).To(BeEmpty())
	g.Expect(spec.SecurityContext).To(BeNil())
	g.Expect(spec.EnableServiceLinks).To(BeNil())
	for _, c := range append(spec.InitContainers, spec.Containers...) {
		g.Expect(c.TerminationMessagePath).To(BeEmpty(), c.Name)
		g.Expect(c.TerminationMessagePolicy).To(BeEmpty(), c.Name)
		g.Expect(c.ImagePullPolicy).To(Equal(corev1.PullAlways), "%s: its default depends on the image, so it travels", c.Name)
	}
	g.Expect(spec.RestartPolicy).To(Equal(corev1.RestartPolicyAlways), "the provider's controller reads it")
	g.Expect(spec.Tolerations).To(ConsistOf(corev1.Toleration{Key: "gpu", Operator: corev1.TolerationOpExists}),
		"the NotReady tolerations are for the virtual node; the provider drops them")

	chosen := RemotePodSpec(localPod(defaulted, func(p *corev1.Pod) {
		p.Spec.DNSPolicy, p.Spec.EnableServiceLinks = corev1.DNSDefault, ptr.To(false)
		p.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true)}
		p.Spec.Containers[0].TerminationMessagePath = "/tmp/why"
		p.Spec.Containers[0].TerminationMessagePolicy = corev1.TerminationMessageFallbackToLogsOnError
	}))
	g.Expect(chosen.DNSPolicy).To(Equal(corev1.DNSDefault), "values other than the defaults are the user's and travel")
	g.Expect(chosen.EnableServiceLinks).To(Equal(ptr.To(false)))
	g.Expect(chosen.SecurityContext.RunAsNonRoot).To(Equal(ptr.To(true)))
	g.Expect(chosen.Containers[0].TerminationMessagePath).To(Equal("/tmp/why"))
	g.Expect(chosen.Containers[0].TerminationMessagePolicy).To(Equal(corev1.TerminationMessageFallbackToLogsOnError))
}

func TestAntiAffinityPresets(t *testing.T) {
	g := NewWithT(t)
	propagate := RemotePodSpec(localPod(withPreset("propagate", "")))
	g.Expect(propagate.Affinity.NodeAffinity).To(BeNil())
	g.Expect(propagate.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].TopologyKey).To(Equal("zone"))

	hard := RemotePodSpec(localPod(withPreset("hard", "app")))
	term := hard.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0]
	g.Expect(term.LabelSelector.MatchLabels).To(Equal(map[string]string{"app": "web"}))
	g.Expect(term.TopologyKey).To(Equal(corev1.LabelHostname))

	soft := RemotePodSpec(localPod(withPreset("soft", "")))
	g.Expect(soft.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].PodAffinityTerm.LabelSelector.MatchLabels).
		To(Equal(map[string]string{"app": "web", "tier": "front"}))
}

func TestShadowPodForLabelsTheOrigin(t *testing.T) {
	g := NewWithT(t)
	sp := ShadowPodFor(localPod(), "liqo-demo-rome-1a2b3c", "rome-id")
	g.Expect(sp.Namespace).To(Equal("liqo-demo-rome-1a2b3c"))
	g.Expect(sp.Name).To(Equal("web-1"))
	g.Expect(sp.Labels).To(HaveKeyWithValue("liqo.io/origin-cluster-id", "rome-id"))
	g.Expect(sp.Labels).To(HaveKeyWithValue(OriginNamespaceLabel, "liqo-demo"))
	g.Expect(sp.Labels).To(HaveKeyWithValue("app", "web"))
}

func TestLocalStatusUsesTheVirtualNodeAddressAndCountsRecreations(t *testing.T) {
	g := NewWithT(t)
	remote := &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodRunning, HostIP: "10.1.2.3", PodIP: "10.65.0.7",
		PodIPs: []corev1.PodIP{{IP: "10.65.0.7"}}, ContainerStatuses: []corev1.ContainerStatus{{Name: "web", RestartCount: 1}}}}
	st := LocalStatus(&remote.Status, network.NewRegistry(), "milan-id", "127.0.0.1", 2)
	g.Expect(st.Phase).To(Equal(corev1.PodRunning))
	g.Expect(st.HostIP).To(Equal("127.0.0.1"))
	g.Expect(st.PodIP).To(Equal("10.65.0.7"), "identity until the fabric registers a mapping")
	g.Expect(st.ContainerStatuses[0].RestartCount).To(Equal(int32(3)))
	g.Expect(remote.Status.HostIP).To(Equal("10.1.2.3"), "the provider's object is not modified")

	// No kubelet of the provider has taken the pod yet: no host to show.
	fresh := &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodPending, QOSClass: corev1.PodQOSBestEffort}}
	st = LocalStatus(&fresh.Status, nil, "milan-id", "127.0.0.1", 0)
	g.Expect(st.HostIP).To(BeEmpty())
	g.Expect(st.HostIPs).To(BeNil())
}

func TestRecreationsReadsTheProvidersCount(t *testing.T) {
	g := NewWithT(t)
	count := func(v string) map[string]string { return map[string]string{"spillway.liqo.io/recreations": v} }
	g.Expect(Recreations(count("3"))).To(Equal(int32(3)))
	g.Expect(Recreations(nil)).To(Equal(int32(0)), "a pod never recreated")
	g.Expect(Recreations(count("many"))).To(Equal(int32(0)))
	g.Expect(Recreations(count("-1"))).To(Equal(int32(0)))
}
