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

package main

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	. "github.com/onsi/gomega"
)

// file is one regular file of an image's flattened filesystem.
type file struct {
	mode int64
	uid  int
	data []byte
}

// filesystem flattens the image's layers as a container runtime would.
func filesystem(t *testing.T, img v1.Image) map[string]file {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	out := map[string]file{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out["/"+strings.TrimPrefix(h.Name, "/")] = file{mode: h.Mode, uid: h.Uid, data: data}
	}
}

// readBack opens what Write wrote, both forms, and checks they hold the same
// image under the same reference.
func readBack(t *testing.T, ref, layoutDir, tarPath string) v1.Image {
	t.Helper()
	g := NewWithT(t)
	p, err := layout.FromPath(layoutDir)
	g.Expect(err).NotTo(HaveOccurred())
	idx, err := p.ImageIndex()
	g.Expect(err).NotTo(HaveOccurred())
	im, err := idx.IndexManifest()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(im.Manifests).To(HaveLen(1))
	desc := im.Manifests[0]
	g.Expect(desc.Platform).To(HaveValue(Equal(Platform)), "the index says linux/amd64")
	g.Expect(desc.Annotations).To(HaveKeyWithValue("org.opencontainers.image.ref.name", ref))
	img, err := p.Image(desc.Digest)
	g.Expect(err).NotTo(HaveOccurred())

	tag, err := name.NewTag(ref)
	g.Expect(err).NotTo(HaveOccurred())
	fromTar, err := tarball.ImageFromPath(tarPath, &tag)
	g.Expect(err).NotTo(HaveOccurred())
	// docker-archive has no manifest of its own: compare what it keeps.
	layoutConfig, err := img.ConfigName()
	g.Expect(err).NotTo(HaveOccurred())
	tarConfig, err := fromTar.ConfigName()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(tarConfig).To(Equal(layoutConfig), "the tarball holds the same image")
	return img
}

func expectRunsAsNonRoot(g Gomega, img v1.Image, entrypoint string) map[string]string {
	cf, err := img.ConfigFile()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(cf.OS).To(Equal("linux"))
	g.Expect(cf.Architecture).To(Equal("amd64"))
	g.Expect(cf.Config.Entrypoint).To(Equal([]string{entrypoint}))
	g.Expect(cf.Config.User).To(Equal("65532:65532"), "the Deployment's runAsUser")
	return cf.Config.Labels
}

// Fast: the image's shape, from a stand-in binary.
func TestBuildShape(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "tool")
	g.Expect(os.WriteFile(bin, []byte("\x7fELF stand-in"), 0o755)).To(Succeed())
	const ref = "example.com/spillway/tool:v9.9.9"
	img, err := Build(Spec{Ref: ref, Version: "v9.9.9", Binaries: []Binary{{Name: "tool", Path: bin}}})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(Write(img, ref, filepath.Join(dir, "layout"), filepath.Join(dir, "tool.tar"))).To(Succeed())

	img = readBack(t, ref, filepath.Join(dir, "layout"), filepath.Join(dir, "tool.tar"))
	labels := expectRunsAsNonRoot(g, img, "/usr/local/bin/tool")
	g.Expect(labels).To(HaveKeyWithValue("org.opencontainers.image.version", "v9.9.9"))
	fs := filesystem(t, img)
	g.Expect(fs).To(HaveKey("/usr/local/bin/tool"))
	g.Expect(fs["/usr/local/bin/tool"].mode).To(BeEquivalentTo(0o755))
	g.Expect(string(fs["/etc/passwd"].data)).To(ContainSubstring("nonroot:x:65532:65532:"))
	g.Expect(fs["/home/nonroot"].uid).To(Equal(65532))

	again, err := Build(Spec{Ref: ref, Version: "v9.9.9", Binaries: []Binary{{Name: "tool", Path: bin}}})
	g.Expect(err).NotTo(HaveOccurred())
	d1, _ := img.Digest()
	d2, _ := again.Digest()
	g.Expect(d2).To(Equal(d1), "same inputs, same digest")
}

func TestRunRefusesLatest(t *testing.T) {
	for _, v := range []string{"", "latest"} {
		if err := run(v, "ghcr.io/spillway-dev", t.TempDir(), ""); err == nil || !strings.Contains(err.Error(), "VERSION") {
			t.Errorf("run(%q) = %v, want a refusal naming the VERSION file", v, err)
		}
	}
}

// The real images, as make image builds them: the controller image runs
// spillway-controller as 65532, carries spillway-gateway next to it (the
// manager starts it from its own directory), and both are static linux/amd64
// binaries that start.
func TestControllerImage(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the manager and the gateway")
	}
	g := NewWithT(t)
	dir := t.TempDir()
	var bins []Binary
	for _, cmd := range []string{"spillway-controller", "spillway-gateway"} {
		out := filepath.Join(dir, "bin", cmd)
		g.Expect(Compile(filepath.Join("..", ".."), "./cmd/"+cmd, out)).To(Succeed())
		bins = append(bins, Binary{Name: cmd, Path: out})
	}
	const ref = "ghcr.io/spillway-dev/spillway-controller:v0.0.0-test"
	img, err := Build(Spec{Ref: ref, Version: "v0.0.0-test", Binaries: bins})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(Write(img, ref, filepath.Join(dir, "layout"), filepath.Join(dir, "image.tar"))).To(Succeed())
	info, err := os.Stat(filepath.Join(dir, "image.tar"))
	g.Expect(err).NotTo(HaveOccurred())
	t.Logf("%s: %.1f MB as a tarball", ref, float64(info.Size())/1e6)

	img = readBack(t, ref, filepath.Join(dir, "layout"), filepath.Join(dir, "image.tar"))
	expectRunsAsNonRoot(g, img, "/usr/local/bin/spillway-controller")
	fs := filesystem(t, img)
	for _, b := range bins {
		f, ok := fs["/usr/local/bin/"+b.Name]
		g.Expect(ok).To(BeTrue(), b.Name)
		g.Expect(f.mode & 0o111).NotTo(BeZero())
		exe, err := elf.NewFile(bytes.NewReader(f.data))
		g.Expect(err).NotTo(HaveOccurred(), b.Name)
		g.Expect(exe.Machine).To(Equal(elf.EM_X86_64), b.Name)
		for _, p := range exe.Progs {
			g.Expect(p.Type).NotTo(Equal(elf.PT_INTERP), "%s must be static: scratch has no dynamic loader", b.Name)
		}
		// The binary taken out of the image starts.
		extracted := filepath.Join(dir, "extracted-"+b.Name)
		g.Expect(os.WriteFile(extracted, f.data, 0o755)).To(Succeed())
		out, _ := exec.Command(extracted, "--help").CombinedOutput()
		g.Expect(string(out)).To(ContainSubstring("Usage"), "%s --help", b.Name)
	}
}

// The Dockerfile must build what make image builds: same entrypoints, same
// user, the gateway next to the manager.
func TestDockerfileMatchesMakeImage(t *testing.T) {
	g := NewWithT(t)
	data, err := os.ReadFile(filepath.Join("..", "..", "Dockerfile"))
	g.Expect(err).NotTo(HaveOccurred())
	stages := map[string][]string{}
	var stage string
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 4 && f[0] == "FROM" && f[2] == "AS" {
			stage = f[3]
		} else if stage != "" && line != "" && !strings.HasPrefix(line, "#") {
			stages[stage] = append(stages[stage], line)
		}
	}
	g.Expect(stages).To(HaveKey("spillway-controller"))
	for _, im := range images {
		lines := stages[im.name]
		g.Expect(lines).To(ContainElement("USER 65532:65532"), im.name)
		g.Expect(lines).To(ContainElement(`ENTRYPOINT ["/usr/local/bin/`+im.binaries[0]+`"]`), im.name)
		for _, b := range im.binaries {
			g.Expect(strings.Join(lines, "\n")).To(ContainSubstring("/out/"+b+" "), "%s carries %s", im.name, b)
		}
	}
	last := strings.LastIndex(string(data), "FROM ")
	g.Expect(string(data[last:])).To(HavePrefix("FROM gcr.io/distroless/static-debian12:nonroot AS spillway-controller"), "the default target is the manager")
}
