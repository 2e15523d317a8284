package foreigncluster

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const kubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: milan
  cluster: {server: "https://127.0.0.1:17022", certificate-authority-data: ""}
users:
- name: milan
  user: {token: "abc"}
contexts:
- name: milan
  context: {cluster: milan, user: milan, namespace: liqo-tenant-rome}
current-context: milan
`

func secret(data map[string]string) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "liqo", Name: "milan-credentials"}, Data: map[string][]byte{}}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	return s
}

func TestCredentialsFromKubeconfig(t *testing.T) {
	g := NewWithT(t)
	c, err := credentialsFromSecret(secret(map[string]string{"kubeconfig": kubeconfig}))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(c.config.Host).To(Equal("https://127.0.0.1:17022"))
	g.Expect(c.config.BearerToken).To(Equal("abc"))
	g.Expect(c.namespace).To(Equal("liqo-tenant-rome"))
}

func TestCredentialsFromKeys(t *testing.T) {
	g := NewWithT(t)
	c, err := credentialsFromSecret(secret(map[string]string{"server": "https://milan:6443", "token": "t", "ca.crt": "x", "namespace": "liqo-tenant-rome"}))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(c.config.Host).To(Equal("https://milan:6443"))
	g.Expect(c.namespace).To(Equal("liqo-tenant-rome"))
}

func TestCredentialsRaiseTheClientRateLimit(t *testing.T) {
	for _, data := range []map[string]string{
		{"kubeconfig": kubeconfig},
		{"server": "https://milan:6443", "token": "t", "namespace": "liqo-tenant-rome"},
	} {
		g := NewWithT(t)
		c, err := credentialsFromSecret(secret(data))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(c.config.QPS).To(Equal(float32(remoteQPS)), "not client-go's default of 5")
		g.Expect(c.config.Burst).To(Equal(remoteBurst))
	}
}

func TestCredentialsFingerprintFollowsContent(t *testing.T) {
	g := NewWithT(t)
	a, _ := credentialsFromSecret(secret(map[string]string{"server": "https://m", "token": "t1", "namespace": "n"}))
	b, _ := credentialsFromSecret(secret(map[string]string{"server": "https://m", "token": "t2", "namespace": "n"}))
	c, _ := credentialsFromSecret(secret(map[string]string{"server": "https://m", "token": "t1", "namespace": "n"}))
	g.Expect(a.fingerprint).NotTo(Equal(b.fingerprint))
	g.Expect(a.fingerprint).To(Equal(c.fingerprint))
}

func TestCredentialsErrorsNameTheSecretAndKey(t *testing.T) {
	for data, want := range map[string]map[string]string{
		`key "kubeconfig" is not a kubeconfig`: {"kubeconfig": "{{{"},
		`neither key "kubeconfig" nor key`:     {"server": "https://m"},
		`is not an https:// URL`:               {"server": "http://m", "token": "t", "namespace": "n"},
		`names no tenant namespace`:            {"server": "https://m", "token": "t"},
	} {
		_, err := credentialsFromSecret(secret(want))
		NewWithT(t).Expect(err).To(MatchError(And(ContainSubstring("liqo/milan-credentials"), ContainSubstring(data))))
	}
}
