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

// Package pod is the pod side of the virtual kubelet: a pod bound to a
// virtual node becomes a ShadowPod in the provider's twin namespace, and the
// provider's pod status comes back to the local pod.
package pod

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/network"
	"github.com/spillway-dev/spillway/policies"
	"github.com/spillway-dev/spillway/reflectors/serviceaccount"
)

// OriginNamespaceLabel records, on the ShadowPod and its pod, the consumer
// namespace a pod came from.
const OriginNamespaceLabel = "liqo.io/origin-namespace"

// LocalPodUIDAnnotation records, on a ShadowPod and the pod the provider
// makes of it, the UID of the local pod it stands for: a pod recreated under
// the same name (a StatefulSet's) has a new UID, so a ShadowPod left by its
// predecessor is told apart and replaced, never adopted. Spillway's own key:
// Liqo has no such contract.
const LocalPodUIDAnnotation = "spillway.liqo.io/local-pod-uid"

// apiAccessVolumePrefix names the token volume the ServiceAccount admission
// plugin injects; it refers to the consumer's API server and is dropped (the
// provider injects its own).
const apiAccessVolumePrefix = "kube-api-access-"

// ShadowPodFor translates a local pod into the ShadowPod the provider runs,
// applying the seed's mutations: scheduling constraints dropped (the provider
// schedules), host namespaces forced off, the consumer's service-account token
// left behind, anti-affinity presets applied.
func ShadowPodFor(pod *corev1.Pod, remoteNamespace, localClusterID string) *virtualkubeletv1alpha1.ShadowPod {
	labels := map[string]string{}
	for k, v := range pod.Labels {
		labels[k] = v
	}
	labels[sharingv1alpha1.OriginClusterIDLabel] = localClusterID
	labels[OriginNamespaceLabel] = pod.Namespace
	annotations := map[string]string{}
	for k, v := range pod.Annotations {
		annotations[k] = v
	}
	// Set last: a pod cannot pass itself off as another by its own annotations.
	delete(annotations, LocalPodUIDAnnotation)
	if pod.UID != "" {
		annotations[LocalPodUIDAnnotation] = string(pod.UID)
	}
	return &virtualkubeletv1alpha1.ShadowPod{
		ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: remoteNamespace, Labels: labels, Annotations: annotations},
		Spec:       virtualkubeletv1alpha1.ShadowPodSpec{Pod: RemotePodSpec(pod)},
	}
}

// RemotePodSpec is the pod spec as it must run in the provider.
func RemotePodSpec(pod *corev1.Pod) corev1.PodSpec {
	spec := *pod.Spec.DeepCopy()
	spec.NodeName, spec.NodeSelector, spec.SchedulerName = "", nil, ""
	spec.Priority, spec.PriorityClassName, spec.PreemptionPolicy = nil, "", nil
	spec.HostNetwork, spec.HostIPC, spec.HostPID = false, false, false
	spec.Affinity = antiAffinityFor(pod)
	spec.TopologySpreadConstraints = nil
	// The provider drops the NotReady tolerations too (its own default
	// applies on its nodes): sending them only makes every ShadowPod larger.
	spec.Tolerations = policies.WithoutNotReadyTolerations(withoutVirtualNodeTolerations(spec.Tolerations))
	spec.ServiceAccountName, spec.DeprecatedServiceAccount, spec.AutomountServiceAccountToken = "", "", nil
	spec.Volumes = withoutAPIAccess(spec.Volumes)
	for i := range spec.InitContainers {
		spec.InitContainers[i].VolumeMounts = withoutAPIAccessMounts(spec.InitContainers[i].VolumeMounts)
	}
	for i := range spec.Containers {
		spec.Containers[i].VolumeMounts = withoutAPIAccessMounts(spec.Containers[i].VolumeMounts)
	}
	withoutAPIServerDefaults(&spec)
	return spec
}

// withoutAPIServerDefaults clears the values the consumer's API server filled
// in that the provider's fills in again, the same whatever a pod holds and on
// every Kubernetes version: a ShadowPod is decoded, validated, stored and sent
// to every watcher as unstructured JSON on the provider, once per write, so
// each field it carries costs there (issue 17, lever 34). The pod the
// provider creates is the same. Defaults that depend on something else (the
// image pull policy on the image's tag, requests on limits) are kept.
func withoutAPIServerDefaults(spec *corev1.PodSpec) {
	if spec.DNSPolicy == corev1.DNSClusterFirst {
		spec.DNSPolicy = ""
	}
	if spec.SecurityContext != nil && equality.Semantic.DeepEqual(*spec.SecurityContext, corev1.PodSecurityContext{}) {
		spec.SecurityContext = nil
	}
	if spec.EnableServiceLinks != nil && *spec.EnableServiceLinks == corev1.DefaultEnableServiceLinks {
		spec.EnableServiceLinks = nil
	}
	for _, containers := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range containers {
			c := &containers[i]
			if c.TerminationMessagePath == corev1.TerminationMessagePathDefault {
				c.TerminationMessagePath = ""
			}
			if c.TerminationMessagePolicy == corev1.TerminationMessageReadFile {
				c.TerminationMessagePolicy = ""
			}
		}
	}
}

// RefusedByEveryProvider is why no provider would run the translated
// ShadowPod, as a message naming the local pod's fields and the fix; "" when
// the baseline pod policy, the least any provider enforces, allows it. The
// consumer fails such a pod at once rather than send what the provider's
// webhook refuses. A provider at the restricted level may refuse more: its
// denial comes back from the create.
func RefusedByEveryProvider(sp *virtualkubeletv1alpha1.ShadowPod) string {
	violations := policies.CheckPod(&sp.Spec.Pod, sp.Annotations, sharingv1alpha1.PodSecurityBaseline)
	if len(violations) == 0 {
		return ""
	}
	return "providers run offloaded pods at least at the Pod Security baseline level: " + policies.DescribePodViolations("spec.", violations)
}

// antiAffinityFor keeps only what the liqo.io/anti-affinity-preset annotation
// asks for: propagate keeps the pod's own anti-affinity; soft and hard build
// one from the pod's labels (or the subset liqo.io/anti-affinity-labels names).
func antiAffinityFor(pod *corev1.Pod) *corev1.Affinity {
	preset := pod.Annotations[offloadingv1alpha1.AntiAffinityPresetAnnotation]
	switch preset {
	case offloadingv1alpha1.AntiAffinityPresetPropagate:
		if pod.Spec.Affinity == nil || pod.Spec.Affinity.PodAntiAffinity == nil {
			return nil
		}
		return &corev1.Affinity{PodAntiAffinity: pod.Spec.Affinity.PodAntiAffinity.DeepCopy()}
	case offloadingv1alpha1.AntiAffinityPresetSoft, offloadingv1alpha1.AntiAffinityPresetHard:
		term := corev1.PodAffinityTerm{TopologyKey: corev1.LabelHostname,
			LabelSelector: &metav1.LabelSelector{MatchLabels: antiAffinityLabels(pod)}}
		if preset == offloadingv1alpha1.AntiAffinityPresetHard {
			return &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term}}}
		}
		return &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 100, PodAffinityTerm: term}}}}
	}
	return nil
}

func antiAffinityLabels(pod *corev1.Pod) map[string]string {
	keys := pod.Annotations[offloadingv1alpha1.AntiAffinityLabelsAnnotation]
	if keys == "" {
		return pod.Labels
	}
	out := map[string]string{}
	for _, k := range strings.Split(keys, ",") {
		if v, ok := pod.Labels[strings.TrimSpace(k)]; ok {
			out[strings.TrimSpace(k)] = v
		}
	}
	return out
}

func withoutVirtualNodeTolerations(in []corev1.Toleration) []corev1.Toleration {
	var out []corev1.Toleration
	for _, t := range in {
		if t.Key != offloadingv1alpha1.VirtualNodeTaintKey {
			out = append(out, t)
		}
	}
	return out
}

func withoutAPIAccess(in []corev1.Volume) []corev1.Volume {
	var out []corev1.Volume
	for _, v := range in {
		if !strings.HasPrefix(v.Name, apiAccessVolumePrefix) {
			out = append(out, v)
		}
	}
	return out
}

func withoutAPIAccessMounts(in []corev1.VolumeMount) []corev1.VolumeMount {
	var out []corev1.VolumeMount
	for _, m := range in {
		if !strings.HasPrefix(m.Name, apiAccessVolumePrefix) {
			out = append(out, m)
		}
	}
	return out
}

// LocalStatus is the provider pod's status as the consumer shows it: pod IPs
// through the network fabric's mapping, the host IP of the virtual node once
// the provider's pod has a host, and restart counts raised by the times the
// provider had to recreate the pod. ips holds the fabric's remaps; nil maps
// every IP to itself.
//
// The host IP follows the provider's: a kubelet reports it with the first
// status it writes, so a remote pod no kubelet has taken yet (just created,
// or only bound by the provider's scheduler) shows no more than the local
// pod already does, and costs no local status write (issue 17, lever 3). The
// virtual node's address said nothing new: it is the address of the node the
// local pod is bound to, and comes with the next status the provider writes.
func LocalStatus(remote *corev1.PodStatus, ips *network.Registry, remoteClusterID, nodeIP string, recreations int32) corev1.PodStatus {
	st := *remote.DeepCopy()
	st.HostIP, st.HostIPs = "", nil
	if nodeIP != "" && remote.HostIP != "" {
		st.HostIP, st.HostIPs = nodeIP, []corev1.HostIP{{IP: nodeIP}}
	}
	if ips != nil && st.PodIP != "" {
		st.PodIP = ips.MapRemoteIP(remoteClusterID, st.PodIP)
	}
	for i := range st.PodIPs {
		if ips != nil {
			st.PodIPs[i].IP = ips.MapRemoteIP(remoteClusterID, st.PodIPs[i].IP)
		}
	}
	for i := range st.ContainerStatuses {
		st.ContainerStatuses[i].RestartCount += recreations
	}
	return st
}

// Recreations is how many times the provider recreated its pod, from the
// annotation its ShadowPod controller sets among the pod's annotations; 0
// when absent or unreadable, as a bad count must not hide the pod's status.
func Recreations(annotations map[string]string) int32 {
	n, err := strconv.ParseInt(annotations[virtualkubeletv1alpha1.RecreationsAnnotation], 10, 32)
	if err != nil || n < 0 {
		return 0
	}
	return int32(n)
}

// WithAPIAccess gives the remote pod spec what the consumer's
// ServiceAccount admission gave the local pod: its token (the Secret the
// serviceaccount reflector keeps in the twin) mounted where the local token
// was, and the consumer's API server as the in-cluster address, so client
// libraries talk home. Nothing changes for a pod that mounts no token, or
// when apiServerURL is empty (--enable-apiserver-support=false).
func WithAPIAccess(spec *corev1.PodSpec, local *corev1.Pod, apiServerURL string) {
	u, err := url.Parse(apiServerURL)
	if apiServerURL == "" || err != nil || u.Hostname() == "" {
		return
	}
	volume := ""
	for _, v := range local.Spec.Volumes {
		if strings.HasPrefix(v.Name, apiAccessVolumePrefix) {
			volume = v.Name
		}
	}
	if volume == "" {
		return
	}
	sa := local.Spec.ServiceAccountName
	if sa == "" {
		sa = "default"
	}
	// The provider must not mount its own token over the consumer's.
	spec.AutomountServiceAccountToken = ptr.To(false)
	spec.Volumes = append(spec.Volumes, corev1.Volume{Name: volume, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
		SecretName: serviceaccount.SecretName(sa)}}}) // mode 0644, the API server's default
	port := u.Port()
	if port == "" {
		port = "443"
	}
	env := []corev1.EnvVar{{Name: "KUBERNETES_SERVICE_HOST", Value: u.Hostname()}, {Name: "KUBERNETES_SERVICE_PORT", Value: port}}
	restore := func(remote []corev1.Container, original []corev1.Container) {
		for i := range remote {
			for _, m := range original[i].VolumeMounts {
				if m.Name == volume {
					remote[i].VolumeMounts = append(remote[i].VolumeMounts, m)
				}
			}
			remote[i].Env = withEnv(remote[i].Env, env)
		}
	}
	restore(spec.InitContainers, local.Spec.InitContainers)
	restore(spec.Containers, local.Spec.Containers)
}

// withEnv sets each of set in env, replacing a variable of the same name: a
// pod a broker offloads onward already carries the address of the cluster it
// came from, and an env list with a name twice is invalid.
func withEnv(env, set []corev1.EnvVar) []corev1.EnvVar {
	out := make([]corev1.EnvVar, 0, len(env)+len(set))
	for _, e := range env {
		if !slices.ContainsFunc(set, func(s corev1.EnvVar) bool { return s.Name == e.Name }) {
			out = append(out, e)
		}
	}
	return append(out, set...)
}
