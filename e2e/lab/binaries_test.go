package lab

import (
	"io"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
)

func TestResolveBinariesNamesAMissingBinaryAndTheFix(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	t.Setenv(EnvKubeBin, filepath.Join(dir, "kubebin"))
	t.Setenv(EnvKwok, filepath.Join(dir, "kwok"))
	t.Setenv(EnvKwokStages, filepath.Join(dir, "stages"))
	_, err := ResolveBinaries(io.Discard)
	g.Expect(err).To(MatchError(And(
		ContainSubstring(filepath.Join(dir, "kubebin", "kube-apiserver")+" is missing"),
		ContainSubstring("hack/kubebin.sh"), ContainSubstring(EnvKubeBin))))
}
