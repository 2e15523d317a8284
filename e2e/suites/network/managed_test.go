//go:build e2e

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

package network_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"golang.zx2c4.com/wireguard/wgctrl/wgtypes"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/controllers/resourceoffer"
	"github.com/spillway-dev/spillway/e2e/framework"
	kubelab "github.com/spillway-dev/spillway/e2e/lab"
	"github.com/spillway-dev/spillway/network/fabric"
)

// The managed fabric: rome and milan are real control planes on the SAME
// pod CIDR (the lab's overlapping mode), peered from clusters/, and their
// managers run one gateway each inside a gateway namespace of this suite.
// Nothing is configured by hand: keys, endpoints and remaps travel through
// the tenant namespace.
const (
	managedPortBase = 18700
	underlayRome    = "198.18.1.1"
	underlayMilan   = "198.18.1.2"
	// naples is a second provider of rome, on the same pod CIDR again.
	underlayRomeNaples = "198.18.2.1"
	underlayNaples     = "198.18.2.2"
)

var _ = Describe("gateways run by the managers", Ordered, func() {
	var (
		kube                      *kubelab.Lab
		rome, milan, naples       *kubelab.Cluster
		romeC, milanC, naplesC    client.Client
		romeID, milanID, naplesID framework.Identity
		tenant                    = sharingv1alpha1.TenantNamespaceName("rome", "")
	)
	BeforeAll(func(ctx context.Context) {
		Expect(theLab.createPair([2]string{"rome", "milan"}, [2]string{underlayRome, underlayMilan})).To(Succeed())
		Expect(theLab.addSpoke("rome", "ul2", "naples", underlayRomeNaples, underlayNaples)).To(Succeed())
		// naples dials rome's one --gateway-address through its own link.
		Expect(run("ip", "-n", theLab.ns("gwnaples"), "route", "add", underlayRome+"/32", "via", underlayRomeNaples)).To(Succeed())
		bin, err := framework.Binaries()
		Expect(err).NotTo(HaveOccurred())
		root, err := kubelab.RepoRoot()
		Expect(err).NotTo(HaveOccurred())
		kube, err = kubelab.StartForSuite(ctx, "network", managedPortBase, kubelab.MustSpecs("rome milan naples"), true)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { Expect(kubelab.TearDownSuite(kube)).To(Succeed()) })
		rome, _ = kube.Cluster("rome")
		milan, _ = kube.Cluster("milan")
		naples, _ = kube.Cluster("naples")
		Expect(rome.PodCIDR()).To(Equal(milan.PodCIDR()), "the lab must give both clusters one pod CIDR")
		managerArgs := func(c *kubelab.Cluster) []string {
			addr := map[string]string{"rome": underlayRome, "milan": underlayMilan, "naples": underlayNaples}[c.Name]
			args := []string{"--gateway-address=" + addr, "--pod-cidr=" + c.PodCIDR(), "--service-cidr=" + c.ServiceCIDR(),
				"--gateway-command=ip netns exec " + theLab.ns("gw"+c.Name) + " " + filepath.Join(bin, "spillway-gateway"),
				"--gateway-state-dir=" + filepath.Join(kube.Dir(), c.Name, "gateways"), "--gateway-implementation=userspace",
				"--gateway-probe-interval=500ms", "--gateway-connect-timeout=10s"}
			if c.Name == "rome" {
				// One side below the default: the managed gateway takes the
				// manager's MTU, and a peering whose ends differ still works.
				args = append(args, "--gateway-mtu="+strconv.Itoa(romeTunnelMTU))
			}
			return args
		}
		Expect(framework.QuickStartWith(ctx, root, rome, milan, nil, managerArgs)).To(Succeed())
		romeC, err = framework.Client(rome)
		Expect(err).NotTo(HaveOccurred())
		milanC, err = framework.Client(milan)
		Expect(err).NotTo(HaveOccurred())
		romeID, err = framework.IdentityOf(filepath.Join(root, "clusters/rome/install"))
		Expect(err).NotTo(HaveOccurred())
		milanID, err = framework.IdentityOf(filepath.Join(root, "clusters/milan/install"))
		Expect(err).NotTo(HaveOccurred())
		naplesID, err = framework.IdentityOf(filepath.Join(root, "clusters/naples/install"))
		Expect(err).NotTo(HaveOccurred())
		Expect(framework.ApplyDir(ctx, naples, filepath.Join(root, "kustomize/crd"))).To(Succeed())
		Expect(framework.Apply(ctx, naples, []*unstructured.Unstructured{framework.Namespace("liqo")})).To(Succeed())
		Expect(framework.StartManager(ctx, naples, naplesID, managerArgs(naples)...)).To(Succeed())
		Expect(framework.Peer(ctx, rome, romeID, naples, naplesID, nil)).To(Succeed())
		naplesC, err = framework.Client(naples)
		Expect(err).NotTo(HaveOccurred())
		for _, c := range []string{"rome", "milan", "naples"} {
			l, err := listenIn(theLab.ns("pod"+c), net.JoinHostPort(podIP, echoPort))
			Expect(err).NotTo(HaveOccurred())
			go serveEcho(l)
			DeferCleanup(l.Close)
		}
	}, NodeTimeout(20*time.Minute))

	// publishedOn returns a ConfigMap of rome's tenant namespace on provider.
	publishedOn := func(ctx context.Context, provider client.Client, name string) map[string]string {
		cm := &corev1.ConfigMap{}
		Expect(provider.Get(ctx, client.ObjectKey{Namespace: tenant, Name: name}, cm)).To(Succeed())
		return cm.Data
	}
	published := func(ctx context.Context, name string) map[string]string { return publishedOn(ctx, milanC, name) }
	networkOfPeer := func(g Gomega, ctx context.Context, peer string) discoveryv1alpha1.PeeringCondition {
		fc := &discoveryv1alpha1.ForeignCluster{}
		g.Expect(romeC.Get(ctx, client.ObjectKey{Name: peer}, fc)).To(Succeed())
		for _, c := range fc.Status.PeeringConditions {
			if c.Type == discoveryv1alpha1.NetworkStatusCondition {
				return c
			}
		}
		return discoveryv1alpha1.PeeringCondition{}
	}
	networkOf := func(g Gomega, ctx context.Context) discoveryv1alpha1.PeeringCondition {
		return networkOfPeer(g, ctx, "milan")
	}
	readyOfPeer := func(g Gomega, ctx context.Context, peer string) *metav1.Condition {
		fc := &discoveryv1alpha1.ForeignCluster{}
		g.Expect(romeC.Get(ctx, client.ObjectKey{Name: peer}, fc)).To(Succeed())
		for i := range fc.Status.Conditions {
			if fc.Status.Conditions[i].Type == discoveryv1alpha1.ReadyCondition {
				return &fc.Status.Conditions[i]
			}
		}
		return &metav1.Condition{}
	}
	readyOf := func(g Gomega, ctx context.Context) *metav1.Condition { return readyOfPeer(g, ctx, "milan") }
	// toNaples is where rome's pods reach naples's pod.
	toNaples := func(ctx context.Context) string {
		cidr := publishedOn(ctx, naplesC, sharingv1alpha1.ConsumerNetworkConfigMapName)[sharingv1alpha1.NetworkRemappedPeerPodCIDRKey]
		return net.JoinHostPort(remapped(cidr), echoPort)
	}
	// romeSeesMilan is where rome's pods reach milan's pod: rome's remap,
	// as rome published it for milan.
	romeSeesMilan := func(ctx context.Context) string {
		return published(ctx, sharingv1alpha1.ConsumerNetworkConfigMapName)[sharingv1alpha1.NetworkRemappedPeerPodCIDRKey]
	}

	It("connects the peering with keys made in each cluster, only public keys crossing", func(ctx context.Context) {
		Eventually(func(g Gomega) {
			n := networkOf(g, ctx)
			g.Expect(n.Status).To(Equal(discoveryv1alpha1.PeeringConditionStatusEstablished), "%s: %s", n.Reason, n.Message)
			g.Expect(readyOf(g, ctx).Status).To(Equal(metav1.ConditionTrue))
			offer := &sharingv1alpha1.ResourceOffer{}
			g.Expect(milanC.Get(ctx, client.ObjectKey{Namespace: "liqo", Name: "rome"}, offer)).To(Succeed())
			g.Expect(conditionStatus(offer.Status.Conditions, resourceoffer.NetworkReadyCondition)).To(Equal(metav1.ConditionTrue))
		}).WithContext(ctx).WithTimeout(60 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
		fmt.Fprintf(GinkgoWriter, "rome's NetworkStatus: %s\n", networkOf(Default, ctx).Message)

		// milan's key Secret stays on milan; what rome reads is its public half.
		keys := &corev1.SecretList{}
		Expect(milanC.List(ctx, keys, client.InNamespace("liqo"), client.MatchingLabels{fabric.GatewayKeyLabel: "true"})).To(Succeed())
		Expect(keys.Items).To(HaveLen(1))
		priv, err := wgtypes.ParseKey(string(keys.Items[0].Data["privateKey"]))
		Expect(err).NotTo(HaveOccurred())
		provider := published(ctx, sharingv1alpha1.ProviderNetworkConfigMapName)
		Expect(provider[sharingv1alpha1.NetworkPublicKeyKey]).To(Equal(priv.PublicKey().String()))
		for k, v := range provider {
			Expect(v).NotTo(ContainSubstring(priv.String()), "key %s of the published ConfigMap", k)
		}
		Expect(provider[sharingv1alpha1.NetworkEndpointKey]).To(HavePrefix(underlayMilan + ":"))
		Expect(romeSeesMilan(ctx)).NotTo(Equal(milan.PodCIDR()), "both clusters use %s: rome must remap milan", milan.PodCIDR())

		// Each manager's --gateway-mtu is its tunnel's MTU: rome's is set,
		// milan's is the default.
		Expect(linkMTU(theLab.ns("gwrome"), fabric.InterfaceName(romeID.ClusterID, milanID.ClusterID))).To(Equal(romeTunnelMTU))
		Expect(linkMTU(theLab.ns("gwmilan"), fabric.InterfaceName(milanID.ClusterID, romeID.ClusterID))).To(Equal(1420))
	})

	It("answers a TCP request from rome's pod to milan's pod at its remapped address, and back", func(ctx context.Context) {
		milanSeesRome := published(ctx, sharingv1alpha1.ProviderNetworkConfigMapName)[sharingv1alpha1.NetworkRemappedPeerPodCIDRKey]
		Eventually(func() (string, error) {
			return echo(theLab.ns("podrome"), net.JoinHostPort(remapped(romeSeesMilan(ctx)), echoPort), "hello milan")
		}).WithTimeout(10*time.Second).WithPolling(200*time.Millisecond).
			Should(Equal("hello milan from "+remapped(milanSeesRome)), "milan's pod sees rome's pod at milan's remap of rome")
		Eventually(func() (string, error) {
			return echo(theLab.ns("podmilan"), net.JoinHostPort(remapped(milanSeesRome), echoPort), "hello rome")
		}).WithTimeout(10*time.Second).WithPolling(200*time.Millisecond).
			Should(Equal("hello rome from "+remapped(romeSeesMilan(ctx))), "rome's pod sees milan's pod at rome's remap of milan")
	})

	It("gives a second overlapping peer its own remap and tunnel", func(ctx context.Context) {
		Eventually(func(g Gomega) {
			n := networkOfPeer(g, ctx, "naples")
			g.Expect(n.Status).To(Equal(discoveryv1alpha1.PeeringConditionStatusEstablished), "%s: %s", n.Reason, n.Message)
		}).WithContext(ctx).WithTimeout(60 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
		naplesRemap := publishedOn(ctx, naplesC, sharingv1alpha1.ConsumerNetworkConfigMapName)[sharingv1alpha1.NetworkRemappedPeerPodCIDRKey]
		Expect(naplesRemap).NotTo(Or(Equal(romeSeesMilan(ctx)), Equal(naples.PodCIDR())),
			"milan and naples both use %s: rome must reach them at two different CIDRs", naples.PodCIDR())
		fmt.Fprintf(GinkgoWriter, "rome reaches milan at %s and naples at %s\n", romeSeesMilan(ctx), naplesRemap)
		Eventually(func() (string, error) { return echo(theLab.ns("podrome"), toNaples(ctx), "hello naples") }).
			WithTimeout(10 * time.Second).WithPolling(200 * time.Millisecond).Should(HavePrefix("hello naples from "))
	})

	It("shows rome the offloaded pod at its remapped address", func(ctx context.Context) {
		remap := netip.MustParsePrefix(romeSeesMilan(ctx))
		Eventually(func(g Gomega) {
			pods := &corev1.PodList{}
			g.Expect(romeC.List(ctx, pods, client.InNamespace("liqo-demo"))).To(Succeed())
			g.Expect(pods.Items).NotTo(BeEmpty())
			for _, p := range pods.Items {
				g.Expect(p.Status.PodIP).NotTo(BeEmpty(), "pod %s has no IP yet", p.Name)
				ip := netip.MustParseAddr(p.Status.PodIP)
				g.Expect(remap.Contains(ip)).To(BeTrue(), "pod %s has IP %s, outside rome's remap %s of milan", p.Name, ip, remap)
				twin := &corev1.PodList{}
				g.Expect(milanC.List(ctx, twin, client.MatchingLabels{sharingv1alpha1.OriginClusterIDLabel: romeID.ClusterID})).To(Succeed())
				g.Expect(remoteIPs(twin)).To(ContainElement(unremap(ip, remap, milan.PodCIDR())), "milan runs the pod at the address rome translated")
			}
		}).WithContext(ctx).WithTimeout(60 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
	})

	It("gives milan rome's endpoints at the address milan's pods reach them", func(ctx context.Context) {
		milanSeesRome := netip.MustParsePrefix(published(ctx, sharingv1alpha1.ProviderNetworkConfigMapName)[sharingv1alpha1.NetworkRemappedPeerPodCIDRKey])
		local := "10.244.7.7" // a pod that stays in rome
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "liqo-demo", Name: "stays-home"},
			Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}
		Expect(romeC.Create(ctx, svc)).To(Succeed())
		ready := true
		slice := &discoveryv1.EndpointSlice{
			ObjectMeta: metav1.ObjectMeta{Namespace: "liqo-demo", Name: "stays-home-1",
				Labels: map[string]string{discoveryv1.LabelServiceName: "stays-home", discoveryv1.LabelManagedBy: "e2e"}},
			AddressType: discoveryv1.AddressTypeIPv4,
			Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{local}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}},
		}
		Expect(romeC.Create(ctx, slice)).To(Succeed())
		want := unremap(netip.MustParseAddr(local), netip.MustParsePrefix(rome.PodCIDR()), milanSeesRome.String())
		Eventually(func(g Gomega) {
			copies := &discoveryv1.EndpointSliceList{}
			g.Expect(milanC.List(ctx, copies, client.MatchingLabels{discoveryv1.LabelServiceName: "stays-home"})).To(Succeed())
			g.Expect(copies.Items).To(HaveLen(1))
			g.Expect(copies.Items[0].Endpoints).To(ConsistOf(HaveField("Addresses", ConsistOf(want))))
		}).WithContext(ctx).WithTimeout(30*time.Second).WithPolling(500*time.Millisecond).Should(Succeed(),
			"milan's copy must carry %s (milan's remap %s of rome), not rome's own %s", want, milanSeesRome, local)
	})

	It("exports each peer's bytes, latency and connectivity in the manager's metrics", func(ctx context.Context) {
		port, err := rome.ExtraPort(0)
		Expect(err).NotTo(HaveOccurred())
		Eventually(func(g Gomega) {
			body, err := getHost("http://127.0.0.1:" + strconv.Itoa(port) + "/metrics")
			g.Expect(err).NotTo(HaveOccurred())
			id := milanID.ClusterID
			for _, sample := range []string{`liqo_peer_receive_bytes_total{remote_cluster_id="` + id + `"}`,
				`liqo_peer_transmit_bytes_total{remote_cluster_id="` + id + `"}`, `liqo_peer_latency_us{remote_cluster_id="` + id + `"}`} {
				g.Expect(metric(body, sample)).To(BeNumerically(">", 0), sample)
			}
			g.Expect(metric(body, `liqo_peer_is_connected{remote_cluster_id="`+id+`"}`)).To(Equal(1.0))
			g.Expect(metric(body, `liqo_wireguard_implementation{implementation="userspace"}`)).To(Equal(1.0))
		}).WithTimeout(15 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
	})

	It("restarts a killed gateway and restores the path within 10 s", func(ctx context.Context) {
		remap := romeSeesMilan(ctx)
		target := net.JoinHostPort(remapped(remap), echoPort)
		Expect(echo(theLab.ns("podrome"), target, "before")).To(HavePrefix("before from"))
		iface := fabric.InterfaceName(milanID.ClusterID, romeID.ClusterID)
		old := gatewayPID(iface)
		Expect(old).NotTo(BeEmpty(), "milan's gateway process (interface %s)", iface)
		killed := time.Now()
		Expect(exec.Command("kill", "-9", old).Run()).To(Succeed())
		Eventually(func() (string, error) {
			return echo(theLab.ns("podrome"), target, "after")
		}).WithTimeout(10 * time.Second).WithPolling(100 * time.Millisecond).Should(HavePrefix("after from"))
		restored := time.Since(killed)
		Expect(gatewayPID(iface)).NotTo(Or(BeEmpty(), Equal(old)), "a new gateway process answers")
		fmt.Fprintf(GinkgoWriter, "milan's gateway killed (pid %s); path rome->milan restored in %s\n", old, restored.Round(10*time.Millisecond))
		AddReportEntry("gateway restart: path restored in", restored.Round(10*time.Millisecond).String())
	})

	It("reports a peer's bad public key as Ready=False naming it, keeping the working tunnel", func(ctx context.Context) {
		// Suspending milan's offer stops its manager from rewriting the
		// ConfigMap, so the bad value stays until the spec says otherwise.
		remap := romeSeesMilan(ctx)
		target := net.JoinHostPort(remapped(remap), echoPort)
		setSuspend(ctx, milanC, true)
		DeferCleanup(func(ctx context.Context) { setSuspend(ctx, milanC, false) })
		cm := &corev1.ConfigMap{}
		Expect(milanC.Get(ctx, client.ObjectKey{Namespace: tenant, Name: sharingv1alpha1.ProviderNetworkConfigMapName}, cm)).To(Succeed())
		cm.Data[sharingv1alpha1.NetworkPublicKeyKey] = "c2hvcnQ=" // 5 bytes
		Expect(milanC.Update(ctx, cm)).To(Succeed())
		Eventually(func(g Gomega) {
			n := networkOf(g, ctx)
			g.Expect(n.Status).To(Equal(discoveryv1alpha1.PeeringConditionStatusError))
			ready := readyOf(g, ctx)
			g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(ready.Reason).To(Equal(fabric.ReasonInvalidPeerParameters))
			g.Expect(ready.Message).To(ContainSubstring(`key "publicKey" decodes to 5 bytes`))
			g.Expect(ready.Message).To(ContainSubstring(sharingv1alpha1.ProviderNetworkConfigMapName))
		}).WithContext(ctx).WithTimeout(30 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
		Expect(echo(theLab.ns("podrome"), target, "still")).To(HavePrefix("still from"),
			"the gateway keeps its last good configuration")
		Expect(romeSeesMilan(ctx)).To(Equal(remap), "rome still publishes the remap milan works with")
		Consistently(func(g Gomega) {
			g.Expect(readyOfPeer(g, ctx, "naples").Status).To(Equal(metav1.ConditionTrue))
			g.Expect(echo(theLab.ns("podrome"), toNaples(ctx), "naples?")).To(HavePrefix("naples? from"))
		}).WithContext(ctx).WithTimeout(3*time.Second).WithPolling(500*time.Millisecond).Should(Succeed(), "the naples peering keeps working")

		setSuspend(ctx, milanC, false)
		Eventually(func(g Gomega) {
			g.Expect(readyOf(g, ctx).Status).To(Equal(metav1.ConditionTrue))
		}).WithContext(ctx).WithTimeout(60 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
	})

	It("refuses a provider's pod CIDR that is too wide or overlaps a local range, naming it, keeping the working tunnel", func(ctx context.Context) {
		remap := romeSeesMilan(ctx)
		target := net.JoinHostPort(remapped(remap), echoPort)
		setSuspend(ctx, milanC, true)
		DeferCleanup(func(ctx context.Context) { setSuspend(ctx, milanC, false) })
		for _, tc := range []struct{ cidr, why string }{
			{"128.0.0.0/1", "wider than /12, the widest pod CIDR this cluster accepts from a peer (--widest-peer-pod-cidr=12)"},
			{rome.ServiceCIDR(), "which overlaps this cluster's service CIDR " + rome.ServiceCIDR() + " (--service-cidr)"},
		} {
			cm := &corev1.ConfigMap{}
			Expect(milanC.Get(ctx, client.ObjectKey{Namespace: tenant, Name: sharingv1alpha1.ProviderNetworkConfigMapName}, cm)).To(Succeed())
			cm.Data[sharingv1alpha1.NetworkPodCIDRKey] = tc.cidr
			Expect(milanC.Update(ctx, cm)).To(Succeed())
			Eventually(func(g Gomega) {
				ready := readyOf(g, ctx)
				g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
				g.Expect(ready.Reason).To(Equal(fabric.ReasonInvalidPeerParameters))
				g.Expect(ready.Message).To(ContainSubstring(`key "podCIDR" is %s, %s`, tc.cidr, tc.why))
				g.Expect(ready.Message).To(ContainSubstring(sharingv1alpha1.ProviderNetworkConfigMapName))
				g.Expect(networkOf(g, ctx).Status).To(Equal(discoveryv1alpha1.PeeringConditionStatusError))
			}).WithContext(ctx).WithTimeout(30*time.Second).WithPolling(500*time.Millisecond).Should(Succeed(), "podCIDR %s", tc.cidr)
			fmt.Fprintf(GinkgoWriter, "rome's Ready message: %s\n", readyOf(Default, ctx).Message)
			Expect(echo(theLab.ns("podrome"), target, "still")).To(HavePrefix("still from"), "the gateway keeps its last good configuration")
			Expect(romeSeesMilan(ctx)).To(Equal(remap), "rome still publishes the remap milan works with")
			routes, err := exec.Command("ip", "-n", theLab.ns("gwrome"), "route", "show", "table", "all", "exact", tc.cidr).Output()
			Expect(err).NotTo(HaveOccurred())
			Expect(string(routes)).To(BeEmpty(), "no route to %s in rome's gateway namespace", tc.cidr)
		}
		Expect(readyOfPeer(Default, ctx, "naples").Status).To(Equal(metav1.ConditionTrue), "the naples peering is not affected")

		setSuspend(ctx, milanC, false)
		Eventually(func(g Gomega) {
			g.Expect(readyOf(g, ctx).Status).To(Equal(metav1.ConditionTrue))
		}).WithContext(ctx).WithTimeout(60 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
		Expect(romeSeesMilan(ctx)).To(Equal(remap), "the remap survives the refusal")
		Expect(echo(theLab.ns("podrome"), target, "back")).To(HavePrefix("back from"))
	})

	It("refuses a consumer's pod CIDR that overlaps the provider's service CIDR, in the provider's NetworkReady", func(ctx context.Context) {
		// Suspending rome's ForeignCluster stops rome from rewriting its
		// parameters on milan.
		setForeignClusterSuspend(ctx, romeC, "milan", true)
		DeferCleanup(func(ctx context.Context) { setForeignClusterSuspend(ctx, romeC, "milan", false) })
		cm := &corev1.ConfigMap{}
		Expect(milanC.Get(ctx, client.ObjectKey{Namespace: tenant, Name: sharingv1alpha1.ConsumerNetworkConfigMapName}, cm)).To(Succeed())
		cm.Data[sharingv1alpha1.NetworkPodCIDRKey] = milan.ServiceCIDR()
		Expect(milanC.Update(ctx, cm)).To(Succeed())
		networkReady := func(g Gomega) *metav1.Condition {
			offer := &sharingv1alpha1.ResourceOffer{}
			g.Expect(milanC.Get(ctx, client.ObjectKey{Namespace: "liqo", Name: "rome"}, offer)).To(Succeed())
			for i := range offer.Status.Conditions {
				if offer.Status.Conditions[i].Type == resourceoffer.NetworkReadyCondition {
					return &offer.Status.Conditions[i]
				}
			}
			return &metav1.Condition{}
		}
		Eventually(func(g Gomega) {
			c := networkReady(g)
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(c.Reason).To(Equal(fabric.ReasonInvalidPeerParameters))
			g.Expect(c.Message).To(ContainSubstring(`key "podCIDR" is %s, which overlaps this cluster's service CIDR %s (--service-cidr)`, milan.ServiceCIDR(), milan.ServiceCIDR()))
			g.Expect(c.Message).To(ContainSubstring(sharingv1alpha1.ConsumerNetworkConfigMapName))
		}).WithContext(ctx).WithTimeout(30 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
		fmt.Fprintf(GinkgoWriter, "milan's NetworkReady message: %s\n", networkReady(Default).Message)
		Expect(echo(theLab.ns("podmilan"), net.JoinHostPort(remapped(published(ctx, sharingv1alpha1.ProviderNetworkConfigMapName)[sharingv1alpha1.NetworkRemappedPeerPodCIDRKey]), echoPort), "still")).
			To(HavePrefix("still from"), "milan's gateway keeps its last good configuration")

		setForeignClusterSuspend(ctx, romeC, "milan", false)
		Eventually(func(g Gomega) {
			g.Expect(networkReady(g).Status).To(Equal(metav1.ConditionTrue))
		}).WithContext(ctx).WithTimeout(60 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
	})

	It("reports an unreachable peer endpoint as Ready=False naming it, and recovers when the path is back", func(ctx context.Context) {
		// Cut the underlay: milan's published endpoint stops answering, in
		// both directions (WireGuard would otherwise roam to whichever end
		// still reaches the other).
		Expect(run("ip", "-n", theLab.ns("gwmilan"), "link", "set", "ul", "down")).To(Succeed())
		DeferCleanup(func() { _ = run("ip", "-n", theLab.ns("gwmilan"), "link", "set", "ul", "up") })
		endpoint := published(ctx, sharingv1alpha1.ProviderNetworkConfigMapName)[sharingv1alpha1.NetworkEndpointKey]
		Eventually(func(g Gomega) {
			ready := readyOf(g, ctx)
			g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(ready.Reason).To(Equal(fabric.ReasonTunnelError))
			g.Expect(ready.Message).To(ContainSubstring(endpoint))
			g.Expect(networkOf(g, ctx).Status).To(Equal(discoveryv1alpha1.PeeringConditionStatusError))
		}).WithContext(ctx).WithTimeout(60 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
		fmt.Fprintf(GinkgoWriter, "rome's Ready message: %s\n", readyOf(Default, ctx).Message)
		Expect(readyOfPeer(Default, ctx, "naples").Status).To(Equal(metav1.ConditionTrue), "the naples peering is not affected")
		Expect(echo(theLab.ns("podrome"), toNaples(ctx), "naples?")).To(HavePrefix("naples? from"))

		Expect(run("ip", "-n", theLab.ns("gwmilan"), "link", "set", "ul", "up")).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(readyOf(g, ctx).Status).To(Equal(metav1.ConditionTrue))
		}).WithContext(ctx).WithTimeout(60 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
		Expect(echo(theLab.ns("podrome"), net.JoinHostPort(remapped(romeSeesMilan(ctx)), echoPort), "back")).To(HavePrefix("back from"))
	})
})

func conditionStatus(conds []metav1.Condition, t string) metav1.ConditionStatus {
	for _, c := range conds {
		if c.Type == t {
			return c.Status
		}
	}
	return ""
}

func setSuspend(ctx context.Context, c client.Client, suspend bool) {
	offer := &sharingv1alpha1.ResourceOffer{}
	Expect(c.Get(ctx, client.ObjectKey{Namespace: "liqo", Name: "rome"}, offer)).To(Succeed())
	patch := client.MergeFrom(offer.DeepCopy())
	offer.Spec.Suspend = suspend
	Expect(c.Patch(ctx, offer, patch)).To(Succeed())
}

func setForeignClusterSuspend(ctx context.Context, c client.Client, name string, suspend bool) {
	fc := &discoveryv1alpha1.ForeignCluster{}
	Expect(c.Get(ctx, client.ObjectKey{Name: name}, fc)).To(Succeed())
	patch := client.MergeFrom(fc.DeepCopy())
	fc.Spec.Suspend = suspend
	Expect(c.Patch(ctx, fc, patch)).To(Succeed())
}

func remoteIPs(pods *corev1.PodList) []string {
	var ips []string
	for _, p := range pods.Items {
		ips = append(ips, p.Status.PodIP)
	}
	return ips
}

// unremap is the address of cidr that ip, an address of the same-sized
// remap, stands for: cidr's network bits, ip's host bits.
func unremap(ip netip.Addr, remap netip.Prefix, cidr string) string {
	host := uint32(1)<<(32-remap.Bits()) - 1
	a, t := ip.As4(), netip.MustParsePrefix(cidr).Masked().Addr().As4()
	v := binary.BigEndian.Uint32(t[:]) | binary.BigEndian.Uint32(a[:])&host
	var out [4]byte
	binary.BigEndian.PutUint32(out[:], v)
	return netip.AddrFrom4(out).String()
}

// getHost fetches url from the host's own network namespace.
func getHost(url string) (string, error) {
	resp, err := (&http.Client{Timeout: 3 * time.Second}).Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return string(body), err
}

// gatewayPID is the pid of the gateway process serving iface, or "".
func gatewayPID(iface string) string {
	out, _ := exec.Command("pgrep", "-f", "spillway-gateway.*--interface-name="+iface).Output()
	return strings.TrimSpace(string(out))
}

// romeTunnelMTU is rome's --gateway-mtu in this suite, under the default.
const romeTunnelMTU = 1380

// linkMTU is the MTU of the link iface in network namespace ns.
func linkMTU(ns, iface string) (int, error) {
	out, err := exec.Command("ip", "-n", ns, "-o", "link", "show", "dev", iface).Output()
	if err != nil {
		return 0, fmt.Errorf("ip -n %s link show dev %s: %w", ns, iface, err)
	}
	fields := strings.Fields(string(out))
	for i, f := range fields {
		if f == "mtu" && i+1 < len(fields) {
			return strconv.Atoi(fields[i+1])
		}
	}
	return 0, fmt.Errorf("no mtu in %q", out)
}
