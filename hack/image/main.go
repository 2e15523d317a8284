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

// Command image builds Spillway's OCI images without a Docker engine:
// static binaries (CGO_ENABLED=0) on a scratch base with a nonroot user,
// written as OCI layouts and docker-archive tarballs under bin/images. It is
// what `make image` runs; the Dockerfile builds the same images with Docker.
//
//	go run ./hack/image --version v0.1.0 --registry ghcr.io/spillway-dev --out bin/images
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// images are the images Spillway publishes. The controller image carries
// spillway-gateway too: the manager runs one per peering from its own
// directory (kustomize/components/fabric).
var images = []struct {
	name     string
	binaries []string
}{
	{"spillway-controller", []string{"spillway-controller", "spillway-gateway"}},
	{"spillway-gateway", []string{"spillway-gateway"}},
}

func main() {
	version := flag.String("version", "", "image tag, e.g. v0.1.0 (the VERSION file)")
	registry := flag.String("registry", "ghcr.io/spillway-dev", "registry and path the images are named under")
	out := flag.String("out", "bin/images", "directory for the OCI layouts and tarballs")
	caBundle := flag.String("ca-bundle", "/etc/ssl/certs/ca-certificates.crt", "CA certificates to install; empty for none")
	flag.Parse()
	if err := run(*version, *registry, *out, *caBundle); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(version, registry, out, caBundle string) error {
	if version == "" || version == "latest" {
		return fmt.Errorf("--version %q: give a release version such as v0.1.0 (see the VERSION file); images are never tagged latest", version)
	}
	if _, err := os.Stat(caBundle); caBundle != "" && err != nil {
		fmt.Fprintf(os.Stderr, "image: no CA bundle at %s, images will trust no public CA\n", caBundle)
		caBundle = ""
	}
	binDir := filepath.Join(out, "linux_amd64")
	start := time.Now()
	for _, cmd := range []string{"spillway-controller", "spillway-gateway"} {
		if err := Compile(".", "./cmd/"+cmd, filepath.Join(binDir, cmd)); err != nil {
			return err
		}
	}
	fmt.Printf("compiled in %s\n", time.Since(start).Round(time.Second))
	for _, im := range images {
		spec := Spec{Ref: registry + "/" + im.name + ":" + version, CABundle: caBundle, Version: version}
		for _, b := range im.binaries {
			spec.Binaries = append(spec.Binaries, Binary{Name: b, Path: filepath.Join(binDir, b)})
		}
		img, err := Build(spec)
		if err != nil {
			return err
		}
		tarPath := filepath.Join(out, im.name+".tar")
		if err := Write(img, spec.Ref, filepath.Join(out, im.name), tarPath); err != nil {
			return fmt.Errorf("%s: %w", spec.Ref, err)
		}
		digest, err := img.Digest()
		if err != nil {
			return err
		}
		size, err := imageSize(img)
		if err != nil {
			return err
		}
		fmt.Printf("%s  %s  %.1f MB compressed  %s\n", spec.Ref, digest, float64(size)/1e6, tarPath)
	}
	return nil
}

// imageSize is the compressed size of the image's layers: what a pull moves.
func imageSize(img v1.Image) (int64, error) {
	layers, err := img.Layers()
	if err != nil {
		return 0, err
	}
	var total int64
	for _, l := range layers {
		n, err := l.Size()
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}
