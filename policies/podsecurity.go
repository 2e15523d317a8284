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

package policies

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

// ProviderServiceAccount is the only ServiceAccount an offloaded pod runs as
// on a provider: the twin namespace's default one, which no RoleBinding of
// Spillway's grants anything. The consumer leaves the field empty (the API
// server then assigns default); anything else would borrow an identity the
// provider gave someone else.
const ProviderServiceAccount = "default"

// PodViolation is one field of an offloaded pod that the provider's pod
// policy refuses. Field is the path inside the pod spec ("containers[0].securityContext.privileged");
// Problem says what is wrong with it and Fix what to do instead.
type PodViolation struct {
	Field   string
	Problem string
	Fix     string
}

// String reads "<field>: <problem>: <fix>", with the path as given.
func (v PodViolation) String() string {
	return v.Field + ": " + v.Problem + ": " + v.Fix
}

// DescribePodViolations joins violations into one message, each pod spec
// field prefixed with where the pod spec lives in the object ("spec.pod." for
// a ShadowPod, "spec." for a Pod); metadata fields are left as they are.
func DescribePodViolations(prefix string, vs []PodViolation) string {
	parts := make([]string, 0, len(vs))
	for _, v := range vs {
		if !strings.HasPrefix(v.Field, "metadata.") {
			v.Field = prefix + v.Field
		}
		parts = append(parts, v.String())
	}
	return strings.Join(parts, "; ")
}

// baselineCapabilities are the capabilities the Pod Security baseline lets a
// container add (the container runtime's default set).
var baselineCapabilities = map[corev1.Capability]bool{
	"AUDIT_WRITE": true, "CHOWN": true, "DAC_OVERRIDE": true, "FOWNER": true, "FSETID": true, "KILL": true, "MKNOD": true,
	"NET_BIND_SERVICE": true, "SETFCAP": true, "SETGID": true, "SETPCAP": true, "SETUID": true, "SYS_CHROOT": true,
}

// safeSysctls are the namespaced sysctls the baseline allows.
var safeSysctls = map[string]bool{
	"kernel.shm_rmid_forced": true, "net.ipv4.ip_local_port_range": true, "net.ipv4.ip_unprivileged_port_start": true,
	"net.ipv4.tcp_syncookies": true, "net.ipv4.ping_group_range": true, "net.ipv4.ip_local_reserved_ports": true,
	"net.ipv4.tcp_keepalive_time": true, "net.ipv4.tcp_fin_timeout": true, "net.ipv4.tcp_keepalive_intvl": true,
	"net.ipv4.tcp_keepalive_probes": true,
}

// baselineSELinuxTypes are the SELinux types a baseline pod may ask for.
var baselineSELinuxTypes = map[string]bool{"": true, "container_t": true, "container_init_t": true, "container_kvm_t": true, "container_engine_t": true}

// appArmorAnnotationPrefix is the deprecated per-container AppArmor annotation.
const appArmorAnnotationPrefix = "container.apparmor.security.beta.kubernetes.io/"

// CheckPod judges a pod spec (and its annotations, for AppArmor) against
// the provider's pod policy at level: what Spillway forbids whatever the
// level (nodeName, another ServiceAccount), the Pod Security baseline, and at
// restricted the restricted profile too. It returns nothing for an allowed
// pod. Both the consumer (before it sends a pod) and the provider (at
// admission and before it creates the pod) call it.
func CheckPod(spec *corev1.PodSpec, annotations map[string]string, level sharingv1alpha1.PodSecurityLevel) []PodViolation {
	var out []PodViolation
	add := func(field, problem, fix string) {
		out = append(out, PodViolation{Field: field, Problem: problem, Fix: fix})
	}
	checkProviderOwned(spec, add)
	checkBaseline(spec, annotations, add)
	if level == sharingv1alpha1.PodSecurityRestricted {
		checkRestricted(spec, add)
	}
	return out
}

type addFunc func(field, problem, fix string)

// checkProviderOwned: fields whose value only the provider may choose.
func checkProviderOwned(spec *corev1.PodSpec, add addFunc) {
	if spec.NodeName != "" {
		add("nodeName", fmt.Sprintf("is %q: the provider's scheduler places offloaded pods", spec.NodeName), "leave nodeName empty")
	}
	for _, f := range []struct{ field, sa string }{{"serviceAccountName", spec.ServiceAccountName}, {"serviceAccount", spec.DeprecatedServiceAccount}} {
		if f.sa != "" && f.sa != ProviderServiceAccount {
			add(f.field, fmt.Sprintf("is %q: offloaded pods run as the twin namespace's ServiceAccount %q", f.sa, ProviderServiceAccount),
				"leave it empty")
		}
	}
}

// container is one container of any kind, with its path in the pod spec.
type container struct {
	path string
	sc   *corev1.SecurityContext
	c    *corev1.Container
}

func allContainers(spec *corev1.PodSpec) []container {
	var out []container
	for i := range spec.InitContainers {
		out = append(out, container{fmt.Sprintf("initContainers[%d]", i), spec.InitContainers[i].SecurityContext, &spec.InitContainers[i]})
	}
	for i := range spec.Containers {
		out = append(out, container{fmt.Sprintf("containers[%d]", i), spec.Containers[i].SecurityContext, &spec.Containers[i]})
	}
	for i := range spec.EphemeralContainers {
		c := corev1.Container(spec.EphemeralContainers[i].EphemeralContainerCommon)
		out = append(out, container{fmt.Sprintf("ephemeralContainers[%d]", i), c.SecurityContext, &c})
	}
	return out
}

// checkBaseline holds the pod to the Pod Security baseline profile.
func checkBaseline(spec *corev1.PodSpec, annotations map[string]string, add addFunc) {
	for _, f := range []struct {
		field string
		on    bool
	}{{"hostNetwork", spec.HostNetwork}, {"hostPID", spec.HostPID}, {"hostIPC", spec.HostIPC}} {
		if f.on {
			add(f.field, "is true: offloaded pods never share the provider node's namespaces", "set it to false or leave it out")
		}
	}
	for i, v := range spec.Volumes {
		if v.HostPath != nil {
			add(fmt.Sprintf("volumes[%d].hostPath", i), fmt.Sprintf("volume %q mounts the provider node's path %q", v.Name, v.HostPath.Path),
				"use an emptyDir, a ConfigMap, a Secret or a PersistentVolumeClaim")
		}
	}
	if psc := spec.SecurityContext; psc != nil {
		checkSELinux("securityContext.seLinuxOptions", psc.SELinuxOptions, add)
		checkHostProcess("securityContext.windowsOptions.hostProcess", psc.WindowsOptions, add)
		checkSeccompNotUnconfined("securityContext.seccompProfile.type", psc.SeccompProfile, add)
		checkAppArmor("securityContext.appArmorProfile.type", psc.AppArmorProfile, add)
		for i, s := range psc.Sysctls {
			if !safeSysctls[s.Name] {
				add(fmt.Sprintf("securityContext.sysctls[%d]", i), fmt.Sprintf("sysctl %q is not in the Pod Security baseline's safe set", s.Name),
					"remove it")
			}
		}
	}
	for _, k := range sortedKeys(annotations) {
		if v := annotations[k]; strings.HasPrefix(k, appArmorAnnotationPrefix) && v != "runtime/default" && !strings.HasPrefix(v, "localhost/") {
			add("metadata.annotations["+k+"]", fmt.Sprintf("is %q", v), "use runtime/default or localhost/<profile>, or remove it")
		}
	}
	for _, c := range allContainers(spec) {
		for j, p := range c.c.Ports {
			if p.HostPort != 0 {
				add(fmt.Sprintf("%s.ports[%d].hostPort", c.path, j), fmt.Sprintf("is %d: offloaded pods do not bind the provider node's ports", p.HostPort),
					"remove hostPort and reach the pod through a Service")
			}
		}
		if c.sc == nil {
			continue
		}
		sc := c.path + ".securityContext"
		if c.sc.Privileged != nil && *c.sc.Privileged {
			add(sc+".privileged", "is true: a privileged container is root on the provider's node", "set it to false or leave it out")
		}
		if c.sc.Capabilities != nil {
			for j, capability := range c.sc.Capabilities.Add {
				if !baselineCapabilities[capability] {
					add(fmt.Sprintf("%s.capabilities.add[%d]", sc, j), fmt.Sprintf("adds %s, beyond the Pod Security baseline set", capability),
						"remove it; only the runtime's default capabilities (CHOWN, NET_BIND_SERVICE, SETUID, ...) may be added")
				}
			}
		}
		if c.sc.ProcMount != nil && *c.sc.ProcMount != corev1.DefaultProcMount {
			add(sc+".procMount", fmt.Sprintf("is %q", *c.sc.ProcMount), "leave it out (Default)")
		}
		checkSELinux(sc+".seLinuxOptions", c.sc.SELinuxOptions, add)
		checkHostProcess(sc+".windowsOptions.hostProcess", c.sc.WindowsOptions, add)
		checkSeccompNotUnconfined(sc+".seccompProfile.type", c.sc.SeccompProfile, add)
		checkAppArmor(sc+".appArmorProfile.type", c.sc.AppArmorProfile, add)
	}
}

func checkSELinux(field string, o *corev1.SELinuxOptions, add addFunc) {
	if o == nil {
		return
	}
	if !baselineSELinuxTypes[o.Type] {
		add(field+".type", fmt.Sprintf("is %q", o.Type), "use container_t, container_init_t, container_kvm_t or container_engine_t, or leave it out")
	}
	if o.User != "" || o.Role != "" {
		add(field, "sets a user or a role", "leave seLinuxOptions.user and seLinuxOptions.role out")
	}
}

func checkHostProcess(field string, o *corev1.WindowsSecurityContextOptions, add addFunc) {
	if o != nil && o.HostProcess != nil && *o.HostProcess {
		add(field, "is true: a host process container is the node itself", "set it to false or leave it out")
	}
}

func checkSeccompNotUnconfined(field string, p *corev1.SeccompProfile, add addFunc) {
	if p != nil && p.Type == corev1.SeccompProfileTypeUnconfined {
		add(field, "is Unconfined", "use RuntimeDefault or Localhost")
	}
}

func checkAppArmor(field string, p *corev1.AppArmorProfile, add addFunc) {
	if p != nil && p.Type == corev1.AppArmorProfileTypeUnconfined {
		add(field, "is Unconfined", "use RuntimeDefault or Localhost")
	}
}

// restrictedVolumeTypes are the volume sources the restricted profile allows.
func restrictedVolume(v *corev1.Volume) bool {
	s := v.VolumeSource
	return s.ConfigMap != nil || s.CSI != nil || s.DownwardAPI != nil || s.EmptyDir != nil || s.Ephemeral != nil ||
		s.PersistentVolumeClaim != nil || s.Projected != nil || s.Secret != nil
}

// checkRestricted adds the restricted profile to the baseline.
func checkRestricted(spec *corev1.PodSpec, add addFunc) {
	for i := range spec.Volumes {
		if v := &spec.Volumes[i]; !restrictedVolume(v) && v.HostPath == nil {
			add(fmt.Sprintf("volumes[%d]", i), fmt.Sprintf("volume %q is of a type the restricted level does not allow", v.Name),
				"use configMap, csi, downwardAPI, emptyDir, ephemeral, persistentVolumeClaim, projected or secret")
		}
	}
	psc := spec.SecurityContext
	if psc == nil {
		psc = &corev1.PodSecurityContext{}
	}
	podNonRoot := psc.RunAsNonRoot != nil && *psc.RunAsNonRoot
	podSeccomp := psc.SeccompProfile != nil
	if psc.RunAsNonRoot != nil && !*psc.RunAsNonRoot {
		add("securityContext.runAsNonRoot", "is false", "set it to true")
	}
	if psc.RunAsUser != nil && *psc.RunAsUser == 0 {
		add("securityContext.runAsUser", "is 0 (root)", "use a non-zero user ID or leave it out")
	}
	if p := psc.SeccompProfile; p != nil && p.Type != corev1.SeccompProfileTypeRuntimeDefault && p.Type != corev1.SeccompProfileTypeLocalhost {
		add("securityContext.seccompProfile.type", fmt.Sprintf("is %q", p.Type), "use RuntimeDefault or Localhost")
	}
	for _, c := range allContainers(spec) {
		sc := c.sc
		if sc == nil {
			sc = &corev1.SecurityContext{}
		}
		path := c.path + ".securityContext"
		if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
			add(path+".allowPrivilegeEscalation", "is not false", "set it to false")
		}
		switch {
		case sc.RunAsNonRoot != nil && !*sc.RunAsNonRoot:
			add(path+".runAsNonRoot", "is false", "set it to true")
		case sc.RunAsNonRoot == nil && !podNonRoot:
			add(path+".runAsNonRoot", "is not set, nor is the pod's securityContext.runAsNonRoot", "set either to true")
		}
		if sc.RunAsUser != nil && *sc.RunAsUser == 0 {
			add(path+".runAsUser", "is 0 (root)", "use a non-zero user ID or leave it out")
		}
		switch p := sc.SeccompProfile; {
		case p == nil && !podSeccomp:
			add(path+".seccompProfile.type", "is not set, nor is the pod's securityContext.seccompProfile", "set either to RuntimeDefault or Localhost")
		case p != nil && p.Type != corev1.SeccompProfileTypeRuntimeDefault && p.Type != corev1.SeccompProfileTypeLocalhost:
			add(path+".seccompProfile.type", fmt.Sprintf("is %q", p.Type), "use RuntimeDefault or Localhost")
		}
		if !dropsAll(sc.Capabilities) {
			add(path+".capabilities.drop", "does not contain ALL", `drop "ALL" (and add back NET_BIND_SERVICE if needed)`)
		}
		if sc.Capabilities != nil {
			for j, capability := range sc.Capabilities.Add {
				if capability != "NET_BIND_SERVICE" && baselineCapabilities[capability] {
					add(fmt.Sprintf("%s.capabilities.add[%d]", path, j), fmt.Sprintf("adds %s: the restricted level allows only NET_BIND_SERVICE", capability),
						"remove it")
				}
			}
		}
	}
}

func dropsAll(c *corev1.Capabilities) bool {
	if c == nil {
		return false
	}
	for _, d := range c.Drop {
		if d == "ALL" {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
