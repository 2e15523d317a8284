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
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/cli/manifests"
)

// root is the repository root; go test runs in the package directory.
const root = ".."

// seedResourceOffer is the ResourceOffer of the user's homelab fleet repo,
// exactly as written there. It must keep applying unchanged.
const seedResourceOffer = `apiVersion: sharing.liqo.io/v1alpha1
kind: ResourceOffer
metadata:
  name: homelab-offer
  namespace: liqo-system
spec:
  clusterId: homelab-cluster-id
  resources:
    limits:
      cpu: "4"
      memory: "16Gi"
      nvidia.com/gpu: "1"
`

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// built is the output of one kustomize build.
type built struct {
	dir string
	res resmap.ResMap
}

func build(t *testing.T, dir string) built {
	t.Helper()
	res, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	return built{dir: dir, res: res}
}

// find returns the JSON of the one object of the given kind and name; an
// empty namespace matches cluster-scoped objects only.
func (b built) find(t *testing.T, kind, namespace, name string) []byte {
	t.Helper()
	var found [][]byte
	for _, r := range b.res.Resources() {
		if r.GetKind() == kind && r.GetName() == name && r.GetNamespace() == namespace {
			j, err := r.MarshalJSON()
			if err != nil {
				t.Fatalf("%s: %s %s/%s: %v", b.dir, kind, namespace, name, err)
			}
			found = append(found, j)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s: want exactly one %s %q in namespace %q, found %d", b.dir, kind, name, namespace, len(found))
	}
	return found[0]
}

// kinds counts the built objects per kind.
func (b built) kinds() map[string]int {
	m := map[string]int{}
	for _, r := range b.res.Resources() {
		m[r.GetKind()]++
	}
	return m
}

// decodeStrict decodes JSON into out, failing on any field out does not know,
// so that a misspelled field in a manifest fails the test instead of being
// silently dropped as the API server would. Unlike encoding/json it matches
// field names case-sensitively, as the API server does: clusterId is not
// clusterID.
func decodeStrict(data []byte, out any) error {
	strictErrs, err := sigsjson.UnmarshalStrict(data, out)
	if err != nil {
		return err
	}
	return errors.Join(strictErrs...)
}

func mustDecodeStrict(t *testing.T, data []byte, out any) {
	t.Helper()
	if err := decodeStrict(data, out); err != nil {
		t.Fatalf("strict decoding into %T: %v\n%s", out, err, data)
	}
}

// kustomizationDirs lists every directory under clusters/ holding a
// kustomization.yaml, so new clusters are checked without touching this file.
func kustomizationDirs(t *testing.T) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == "kustomization.yaml" {
			dirs = append(dirs, filepath.Dir(path))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// identity is a cluster's ConfigMap spillway-cluster-identity.
func identity(t *testing.T, cluster string) map[string]string {
	t.Helper()
	var cm corev1.ConfigMap
	mustDecodeStrict(t, build(t, filepath.Join(cluster, "install")).find(t, "ConfigMap", "liqo", "spillway-cluster-identity"), &cm)
	return cm.Data
}

func TestEveryKustomizationBuilds(t *testing.T) {
	dirs := kustomizationDirs(t)
	want := []string{"examples/homelab-offer", "examples/fabric-install"}
	for _, c := range seedClusters {
		want = append(want, c+"/install", c+"/config")
	}
	for _, want := range want {
		if !contains(dirs, filepath.FromSlash(want)) {
			t.Errorf("clusters/%s has no kustomization.yaml", want)
		}
	}
	dirs = append(dirs, filepath.Join(root, "kustomize", "default"), filepath.Join(root, "kustomize", "manager"),
		filepath.Join(root, "kustomize", "rbac"))
	for _, dir := range dirs {
		t.Run(dir, func(t *testing.T) {
			if n := build(t, dir).res.Size(); n == 0 {
				t.Errorf("%s builds to nothing", dir)
			}
		})
	}
}

func TestInstallBase(t *testing.T) {
	g := NewWithT(t)
	b := build(t, filepath.Join(root, "kustomize", "default"))
	g.Expect(b.kinds()).To(Equal(map[string]int{
		"CustomResourceDefinition": 5, "Namespace": 1, "ServiceAccount": 1, "Deployment": 1,
		"ClusterRole": 1, "ClusterRoleBinding": 1, "Role": 1, "RoleBinding": 1, "Service": 1,
		"StorageClass": 1,
	}))
	b.find(t, "Namespace", "", "liqo")
	b.find(t, "ServiceAccount", "liqo", "spillway-controller")
	b.find(t, "Service", "liqo", "spillway-webhook")
	b.find(t, "StorageClass", "", "liqo")
	b.find(t, "ClusterRole", "", "spillway-controller")

	var crb rbacv1.ClusterRoleBinding
	mustDecodeStrict(t, b.find(t, "ClusterRoleBinding", "", "spillway-controller"), &crb)
	g.Expect(crb.RoleRef).To(Equal(rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "spillway-controller"}))
	g.Expect(crb.Subjects).To(ConsistOf(rbacv1.Subject{Kind: "ServiceAccount", Name: "spillway-controller", Namespace: "liqo"}))
	var rb rbacv1.RoleBinding
	mustDecodeStrict(t, b.find(t, "RoleBinding", "liqo", "spillway-leader-election"), &rb)
	g.Expect(rb.Subjects).To(Equal(crb.Subjects))
	var role rbacv1.Role
	mustDecodeStrict(t, b.find(t, "Role", "liqo", rb.RoleRef.Name), &role)
	g.Expect(role.Rules).To(ContainElement(HaveField("Resources", ContainElement("leases"))))

	var dep appsv1.Deployment
	mustDecodeStrict(t, b.find(t, "Deployment", "liqo", "spillway-controller"), &dep)
	spec := dep.Spec.Template.Spec
	g.Expect(spec.ServiceAccountName).To(Equal("spillway-controller"))
	g.Expect(spec.SecurityContext.RunAsNonRoot).To(HaveValue(BeTrue()))
	g.Expect(spec.Containers).To(HaveLen(1))
	c := spec.Containers[0]
	version, err := os.ReadFile(filepath.Join(root, "VERSION"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(strings.TrimSpace(string(version))).To(MatchRegexp(`^v\d+\.\d+\.\d+$`), "VERSION")
	g.Expect(c.Image).To(Equal("ghcr.io/spillway-dev/spillway-controller:"+strings.TrimSpace(string(version))), "the release make image builds, never :latest")
	g.Expect(c.Args).To(ContainElements("--cluster-id=$(CLUSTER_ID)", "--cluster-name=$(CLUSTER_NAME)",
		"--namespace=$(POD_NAMESPACE)", "--api-server-url=$(API_SERVER_URL)", "--leader-elect"))
	env := expectArgVarsInEnv(g, c)
	g.Expect(env["POD_NAMESPACE"].ValueFrom).To(HaveField("FieldRef.FieldPath", "metadata.namespace"), "the manager's namespace follows the overlay's")
	for _, key := range []string{"CLUSTER_ID", "CLUSTER_NAME", "API_SERVER_URL"} {
		g.Expect(env[key].ValueFrom).NotTo(BeNil(), key)
		g.Expect(env[key].ValueFrom.ConfigMapKeyRef).NotTo(BeNil(), key)
		g.Expect(env[key].ValueFrom.ConfigMapKeyRef.Name).To(Equal("spillway-cluster-identity"))
		g.Expect(env[key].ValueFrom.ConfigMapKeyRef.Key).To(Equal(key))
	}
	g.Expect(c.LivenessProbe.HTTPGet.Path).To(Equal("/healthz"))
	g.Expect(c.ReadinessProbe.HTTPGet.Path).To(Equal("/readyz"))
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	g.Expect(ports).To(Equal(map[string]int32{"metrics": 8080, "health": 8081, "webhook": 9443, "kubelet": 10250}), "Services and the API server reach the ports by name")
	g.Expect(c.LivenessProbe.HTTPGet.Port.String()).To(Equal("health"))
	g.Expect(c.SecurityContext.ReadOnlyRootFilesystem).To(HaveValue(BeTrue()))
	g.Expect(c.SecurityContext.AllowPrivilegeEscalation).To(HaveValue(BeFalse()))
	g.Expect(c.Resources.Requests).To(HaveKey(corev1.ResourceCPU))
	g.Expect(c.Resources.Requests).To(HaveKey(corev1.ResourceMemory))
}

func TestClusterInstalls(t *testing.T) {
	g := NewWithT(t)
	ids := map[string]string{}
	for _, cluster := range clusterDirs(t) {
		b := build(t, filepath.Join(cluster, "install"))
		var cm corev1.ConfigMap
		mustDecodeStrict(t, b.find(t, "ConfigMap", "liqo", "spillway-cluster-identity"), &cm)
		g.Expect(cm.Data["CLUSTER_ID"]).To(MatchRegexp(uuidRE.String()), cluster)
		g.Expect(cm.Data["CLUSTER_NAME"]).To(Equal(cluster))
		g.Expect(cm.Data["API_SERVER_URL"]).To(HavePrefix("https://"), cluster)
		g.Expect(ids).NotTo(HaveKey(cm.Data["CLUSTER_ID"]), "cluster IDs must be unique")
		ids[cm.Data["CLUSTER_ID"]] = cluster

		var dep appsv1.Deployment
		mustDecodeStrict(t, b.find(t, "Deployment", "liqo", "spillway-controller"), &dep)
		for _, e := range dep.Spec.Template.Spec.Containers[0].Env {
			if ref := e.ValueFrom; ref != nil && ref.ConfigMapKeyRef != nil {
				g.Expect(ref.ConfigMapKeyRef.Name).To(Equal(cm.Name))
				g.Expect(cm.Data).To(HaveKey(ref.ConfigMapKeyRef.Key), "%s: env %s", cluster, e.Name)
			}
		}
	}
}

func TestRomeConsumesMilan(t *testing.T) {
	g := NewWithT(t)
	b := build(t, filepath.Join("rome", "config"))
	milan := identity(t, "milan")

	var fc discoveryv1alpha1.ForeignCluster
	mustDecodeStrict(t, b.find(t, "ForeignCluster", "", "milan"), &fc)
	g.Expect(fc.Spec.ClusterIdentity.ClusterID).To(Equal(milan["CLUSTER_ID"]))
	g.Expect(fc.Spec.ClusterIdentity.ClusterName).To(Equal(milan["CLUSTER_NAME"]))
	g.Expect(fc.Spec.OutgoingPeeringEnabled).To(Equal(discoveryv1alpha1.PeeringEnabledYes))
	g.Expect(fc.Spec.IncomingPeeringEnabled).To(Equal(discoveryv1alpha1.PeeringEnabledNo))
	g.Expect(fc.Spec.PeeringType).To(Equal(discoveryv1alpha1.PeeringTypeOutOfBand))
	g.Expect(fc.Spec.CredentialsSecretRef).NotTo(BeNil())

	// The ExternalSecret must produce exactly the Secret the ForeignCluster reads.
	var es externalSecret
	g.Expect(json.Unmarshal(b.find(t, "ExternalSecret", fc.CredentialsNamespace(), fc.Spec.CredentialsSecretRef.Name), &es)).To(Succeed())
	g.Expect(es.APIVersion).To(Equal("external-secrets.io/v1"))
	g.Expect(es.Spec.Target.Name).To(Equal(fc.Spec.CredentialsSecretRef.Name))
	g.Expect(es.Metadata.Namespace).To(Equal(fc.Spec.CredentialsSecretRef.Namespace))
	g.Expect(es.Spec.SecretStoreRef).To(Equal(storeRef{Kind: "ClusterSecretStore", Name: "fleet-secrets"}))
	g.Expect(es.Spec.DataFrom).To(HaveLen(1))

	// ... from the key milan's PushSecret writes.
	var ps pushSecret
	m := build(t, filepath.Join("milan", "config"))
	g.Expect(json.Unmarshal(m.find(t, "PushSecret", "liqo", "identity-rome"), &ps)).To(Succeed())
	g.Expect(ps.Spec.Data).NotTo(BeEmpty())
	for _, d := range ps.Spec.Data {
		g.Expect(es.Spec.DataFrom[0].Extract.Key).To(Equal(d.Match.RemoteRef.RemoteKey))
	}
	g.Expect(ps.Spec.SecretStoreRefs).To(ContainElement(es.Spec.SecretStoreRef))

	b.find(t, "Namespace", "", "liqo-demo")
	var no offloadingv1alpha1.NamespaceOffloading
	mustDecodeStrict(t, b.find(t, "NamespaceOffloading", "liqo-demo", "offloading"), &no)
	g.Expect(no.Spec.NamespaceMappingStrategy).To(Equal(offloadingv1alpha1.DefaultNameMappingStrategy))
	g.Expect(no.Spec.PodOffloadingStrategy).To(Equal(offloadingv1alpha1.LocalAndRemotePodOffloadingStrategy))

	var dep appsv1.Deployment
	mustDecodeStrict(t, b.find(t, "Deployment", "liqo-demo", "nginx"), &dep)
	g.Expect(dep.Spec.Replicas).To(HaveValue(BeEquivalentTo(1)))
	g.Expect(dep.Spec.Template.Spec.Tolerations).To(BeEmpty(), "the webhook adds the virtual-node toleration")
}

func TestMilanOffersToRome(t *testing.T) {
	g := NewWithT(t)
	b := build(t, filepath.Join("milan", "config"))
	rome := identity(t, "rome")

	var offer sharingv1alpha1.ResourceOffer
	mustDecodeStrict(t, b.find(t, "ResourceOffer", "liqo", "rome"), &offer)
	g.Expect(offer.Spec.ClusterID).To(Equal(rome["CLUSTER_ID"]))
	g.Expect(offer.Spec.ClusterName).To(Equal(rome["CLUSTER_NAME"]))
	g.Expect(offer.HasFixedLimits()).To(BeFalse())
	g.Expect(offer.EffectiveSharingPercentage()).To(Equal(sharingv1alpha1.DefaultSharingPercentage))
	g.Expect(offer.Spec.Labels).To(HaveKeyWithValue(sharingv1alpha1.TopologyRegionLabel, "north"))

	// The PushSecret must carry the Secret milan's controller writes for rome.
	var ps pushSecret
	g.Expect(json.Unmarshal(b.find(t, "PushSecret", "liqo", "identity-rome"), &ps)).To(Succeed())
	g.Expect(ps.APIVersion).To(Equal("external-secrets.io/v1alpha1"))
	g.Expect(ps.Spec.Selector.Secret.Name).To(Equal("liqo-identity-" + offer.Spec.ClusterName))
	g.Expect(ps.Spec.Selector.Secret.Name).To(Equal(sharingv1alpha1.IdentitySecretName(offer.Spec.ClusterName, offer.Spec.ClusterID)))
	g.Expect(ps.Metadata.Namespace).To(Equal(discoveryv1alpha1.DefaultCredentialsNamespace))
	g.Expect(ps.Spec.SecretStoreRefs).To(ConsistOf(storeRef{Kind: "ClusterSecretStore", Name: "fleet-secrets"}))
	// Every key of the identity, each as the property of the same name: a
	// store can delete a property, not always a Secret pushed whole.
	var pushed []string
	for _, d := range ps.Spec.Data {
		g.Expect(d.Match.RemoteRef.RemoteKey).To(Equal("spillway-milan-identity-rome"))
		g.Expect(d.Match.RemoteRef.RemoteKey).To(Equal(manifests.IdentityKey("milan", "rome")))
		g.Expect(d.Match.RemoteRef.Property).To(Equal(d.Match.SecretKey))
		pushed = append(pushed, d.Match.SecretKey)
	}
	g.Expect(pushed).To(Equal(sharingv1alpha1.IdentityKeys()))
}

func TestSeedResourceOfferAppliesUnchanged(t *testing.T) {
	g := NewWithT(t)
	dir := filepath.Join("examples", "homelab-offer")
	raw, err := os.ReadFile(filepath.Join(dir, "resource-offer.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(string(raw)).To(Equal(seedResourceOffer), "resource-offer.yaml must stay byte-for-byte the user's")

	var offer sharingv1alpha1.ResourceOffer
	mustDecodeStrict(t, build(t, dir).find(t, "ResourceOffer", "liqo-system", "homelab-offer"), &offer)
	g.Expect(offer.Spec.ClusterID).To(Equal("homelab-cluster-id"))
	g.Expect(offer.HasFixedLimits()).To(BeTrue())
	g.Expect(offer.Spec.Resources.Limits).To(HaveLen(3))
	for name, want := range map[corev1.ResourceName]string{"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"} {
		got := offer.Spec.Resources.Limits[name]
		g.Expect(got.Cmp(resource.MustParse(want))).To(BeZero(), "limit %s = %s, want %s", name, got.String(), want)
	}
	g.Expect(offer.EffectiveSharingPercentage()).To(BeZero())
}

// The decoder the tests rely on must reject a misspelled field. clusterId is
// ResourceOffer's spelling; ForeignCluster's is clusterID.
func TestStrictDecoderRejectsUnknownFields(t *testing.T) {
	g := NewWithT(t)
	j, err := yaml.YAMLToJSON([]byte(`
apiVersion: discovery.liqo.io/v1alpha1
kind: ForeignCluster
metadata: {name: milan}
spec:
  clusterIdentity: {clusterId: x}
`))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(decodeStrict(j, &discoveryv1alpha1.ForeignCluster{})).To(MatchError(ContainSubstring("clusterId")))
}

func TestFluxKustomizations(t *testing.T) {
	for _, cluster := range clusterDirs(t) {
		t.Run(cluster, func(t *testing.T) {
			g := NewWithT(t)
			objs := readFluxObjects(t, filepath.Join(cluster, "flux"))
			src, ok := objs["GitRepository/fleet"]
			g.Expect(ok).To(BeTrue(), "GitRepository fleet")
			g.Expect(src.APIVersion).To(Equal("source.toolkit.fluxcd.io/v1"))
			g.Expect(src.Metadata.Namespace).To(Equal("flux-system"))

			ks := map[string]fluxObject{}
			for _, name := range []string{"spillway-crds", "spillway-install", "spillway-config"} {
				k, ok := objs["Kustomization/"+name]
				g.Expect(ok).To(BeTrue(), "Kustomization %s", name)
				g.Expect(k.APIVersion).To(Equal("kustomize.toolkit.fluxcd.io/v1"))
				g.Expect(k.Spec.SourceRef).To(Equal(fluxRef{Kind: "GitRepository", Name: "fleet", Namespace: "flux-system"}))
				g.Expect(k.Spec.Prune).To(BeTrue(), name)
				dir := filepath.Join(root, filepath.FromSlash(k.Spec.Path))
				g.Expect(filepath.Join(dir, "kustomization.yaml")).To(BeARegularFile(), "%s: spec.path", name)
				ks[name] = k
			}
			g.Expect(ks["spillway-crds"].Spec.Path).To(Equal("./kustomize/crd"))
			g.Expect(ks["spillway-crds"].Spec.Wait).To(BeTrue())
			g.Expect(ks["spillway-install"].Spec.Path).To(Equal("./clusters/" + cluster + "/install"))
			g.Expect(ks["spillway-config"].Spec.Path).To(Equal("./clusters/" + cluster + "/config"))
			g.Expect(ks["spillway-install"].Spec.DependsOn).To(ConsistOf(fluxRef{Name: "spillway-crds"}))
			g.Expect(ks["spillway-config"].Spec.DependsOn).To(ConsistOf(fluxRef{Name: "spillway-install"}, fluxRef{Name: "fleet-secrets"}))

			// The secret store every ExternalSecret and PushSecret names, its
			// address substituted from the ConfigMap bootstrap creates.
			store, ok := objs["Kustomization/fleet-secrets"]
			g.Expect(ok).To(BeTrue(), "Kustomization fleet-secrets")
			g.Expect(store.Spec.Path).To(Equal("./clusters/fleet-secrets"))
			g.Expect(store.Spec.SourceRef).To(Equal(fluxRef{Kind: "GitRepository", Name: "fleet", Namespace: "flux-system"}))
			g.Expect(store.Spec.Wait).To(BeTrue())
			g.Expect(store.Spec.PostBuild.SubstituteFrom).To(ConsistOf(fluxRef{Kind: "ConfigMap", Name: "fleet-secrets-store"}))
			stores := build(t, filepath.Join(root, "clusters", "fleet-secrets"))
			g.Expect(stores.kinds()).To(Equal(map[string]int{"ClusterSecretStore": 1}))
			g.Expect(string(stores.find(t, "ClusterSecretStore", "", "fleet-secrets"))).To(ContainSubstring("${FLEET_SECRETS_SERVER}"))

			// What Flux applies for spillway-install: the overlay with the
			// Kustomization's patches, which leave the CRDs to spillway-crds.
			install := buildWithPatches(t, filepath.Join(root, filepath.FromSlash(ks["spillway-install"].Spec.Path)), ks["spillway-install"].Spec.Patches)
			kinds := install.kinds()
			g.Expect(kinds).NotTo(HaveKey("CustomResourceDefinition"))
			g.Expect(kinds).To(HaveKeyWithValue("Deployment", 1))
			install.find(t, "ConfigMap", "liqo", "spillway-cluster-identity")

			// Health checks must name objects that spillway-config creates
			// (healthChecks are ignored when wait is on).
			cfg := ks["spillway-config"]
			g.Expect(cfg.Spec.Wait).To(BeFalse())
			g.Expect(cfg.Spec.HealthChecks).NotTo(BeEmpty())
			b := build(t, filepath.Join(root, filepath.FromSlash(cfg.Spec.Path)))
			for _, hc := range cfg.Spec.HealthChecks {
				var obj struct {
					APIVersion string `json:"apiVersion"`
				}
				g.Expect(json.Unmarshal(b.find(t, hc.Kind, hc.Namespace, hc.Name), &obj)).To(Succeed())
				g.Expect(obj.APIVersion).To(Equal(hc.APIVersion))
				g.Expect(hc.Kind).To(BeElementOf("ForeignCluster", "ResourceOffer", "NamespaceOffloading"))
			}
			// ... and every such object of the folder, so Flux says Ready only
			// when every peering, offer and offloading is.
			var checked []string
			for _, hc := range cfg.Spec.HealthChecks {
				checked = append(checked, hc.Kind+"/"+hc.Namespace+"/"+hc.Name)
			}
			var want []string
			for _, r := range b.res.Resources() {
				if k := r.GetKind(); k == "ForeignCluster" || k == "ResourceOffer" || k == "NamespaceOffloading" {
					want = append(want, k+"/"+r.GetNamespace()+"/"+r.GetName())
				}
			}
			g.Expect(checked).To(ConsistOf(want))
		})
	}
}

// buildWithPatches builds dir the way Flux's kustomize-controller does when a
// Kustomization carries spec.patches.
func buildWithPatches(t *testing.T, dir string, patches []fluxPatch) built {
	t.Helper()
	tmp := t.TempDir()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	// kustomize accepts only relative paths to other kustomizations.
	rel, err := filepath.Rel(tmp, abs)
	if err != nil {
		t.Fatal(err)
	}
	k := map[string]any{
		"apiVersion": "kustomize.config.k8s.io/v1beta1",
		"kind":       "Kustomization",
		"resources":  []string{filepath.ToSlash(rel)},
		"patches":    patches,
	}
	out, err := yaml.Marshal(k)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "kustomization.yaml"), out, 0o600); err != nil {
		t.Fatal(err)
	}
	return build(t, tmp)
}

func readFluxObjects(t *testing.T, dir string) map[string]fluxObject {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no YAML in %s: %v", dir, err)
	}
	objs := map[string]fluxObject{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(raw), -1) {
			if strings.TrimSpace(stripComments(doc)) == "" {
				continue
			}
			var o fluxObject
			j, err := yaml.YAMLToJSON([]byte(doc))
			if err == nil {
				err = decodeStrict(j, &o)
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			key := o.Kind + "/" + o.Metadata.Name
			if _, dup := objs[key]; dup {
				t.Fatalf("%s: %s defined twice", dir, key)
			}
			objs[key] = o
		}
	}
	return objs
}

func stripComments(doc string) string {
	var b strings.Builder
	for _, l := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// seedClusters are the clusters of the seed's scenarios: the quick start,
// offloading with policies, offloading a service, replicated deployments.
var seedClusters = []string{"rome", "milan", "venice", "florence", "naples", "london", "newyork",
	"europe-cloud", "europe-rome-edge", "europe-milan-edge"}

// clusterDirs lists the cluster folders: those with an install folder.
func clusterDirs(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if st, err := os.Stat(filepath.Join(e.Name(), "install")); err == nil && st.IsDir() {
			out = append(out, e.Name())
		}
	}
	if len(out) < len(seedClusters) {
		t.Fatalf("found cluster folders %v, want at least %v", out, seedClusters)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// The fields of the Flux and External Secrets objects the tests look at. Their
// Go types are not dependencies of this module; fluxObject is decoded strictly,
// so it lists every field our Flux objects use.
type objectMeta struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
}

type fluxRef struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Name       string `json:"name"`
	Namespace  string `json:"namespace,omitempty"`
}

type fluxPatch struct {
	Target map[string]string `json:"target,omitempty"`
	Patch  string            `json:"patch"`
}

type fluxObject struct {
	APIVersion string     `json:"apiVersion"`
	Kind       string     `json:"kind"`
	Metadata   objectMeta `json:"metadata"`
	Spec       struct {
		// GitRepository
		URL string            `json:"url,omitempty"`
		Ref map[string]string `json:"ref,omitempty"`
		// Kustomization
		Interval     string      `json:"interval"`
		DependsOn    []fluxRef   `json:"dependsOn,omitempty"`
		SourceRef    fluxRef     `json:"sourceRef,omitempty"`
		Path         string      `json:"path,omitempty"`
		Prune        bool        `json:"prune,omitempty"`
		Wait         bool        `json:"wait,omitempty"`
		Timeout      string      `json:"timeout,omitempty"`
		Patches      []fluxPatch `json:"patches,omitempty"`
		HealthChecks []fluxRef   `json:"healthChecks,omitempty"`
		PostBuild    struct {
			SubstituteFrom []fluxRef `json:"substituteFrom,omitempty"`
		} `json:"postBuild,omitempty"`
	} `json:"spec"`
}

type storeRef struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

type externalSecret struct {
	APIVersion string     `json:"apiVersion"`
	Metadata   objectMeta `json:"metadata"`
	Spec       struct {
		SecretStoreRef storeRef `json:"secretStoreRef"`
		Target         struct {
			Name string `json:"name"`
		} `json:"target"`
		DataFrom []struct {
			Extract struct {
				Key string `json:"key"`
			} `json:"extract"`
		} `json:"dataFrom"`
	} `json:"spec"`
}

type pushSecret struct {
	APIVersion string     `json:"apiVersion"`
	Metadata   objectMeta `json:"metadata"`
	Spec       struct {
		SecretStoreRefs []storeRef `json:"secretStoreRefs"`
		Selector        struct {
			Secret struct {
				Name string `json:"name"`
			} `json:"secret"`
		} `json:"selector"`
		Data []struct {
			Match struct {
				SecretKey string `json:"secretKey"`
				RemoteRef struct {
					RemoteKey string `json:"remoteKey"`
					Property  string `json:"property"`
				} `json:"remoteRef"`
			} `json:"match"`
		} `json:"data"`
	} `json:"spec"`
}

// expectArgVarsInEnv checks that every $(VAR) in c's args is an env var of
// the container (the kubelet passes an unknown one through literally) and
// returns the env by name.
func expectArgVarsInEnv(g Gomega, c corev1.Container) map[string]corev1.EnvVar {
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	for _, a := range c.Args {
		for _, m := range regexp.MustCompile(`\$\(([A-Z_]+)\)`).FindAllStringSubmatch(a, -1) {
			g.Expect(env).To(HaveKey(m[1]), "arg %s", a)
		}
	}
	return env
}
