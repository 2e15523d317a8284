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

package secret

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/spillway-dev/spillway/reflectors/reflection/reflectiontest"
	"github.com/spillway-dev/spillway/reflectors/serviceaccount"
)

func TestTranslateCopiesTypeAndData(t *testing.T) {
	g := NewWithT(t)
	local := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "liqo-demo"}, Type: corev1.SecretTypeOpaque,
		Data: map[string][]byte{"password": []byte("s3cret")}}
	got := Translate(local, "liqo-demo-rome", reflectiontest.Milan()).(*corev1.Secret)
	g.Expect(got.Type).To(Equal(corev1.SecretTypeOpaque))
	g.Expect(got.Data).To(HaveKeyWithValue("password", []byte("s3cret")))
}

func TestTranslateLeavesServiceAccountTokenSecrets(t *testing.T) {
	g := NewWithT(t)
	token := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "default-token"}, Type: corev1.SecretTypeServiceAccountToken}
	g.Expect(Translate(token, "ns", reflectiontest.Milan())).To(BeNil())
}

func TestTranslateNeverGivesACopyTheTokenLabel(t *testing.T) {
	g := NewWithT(t)
	local := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "x", Labels: map[string]string{serviceaccount.TokenLabel: "true", "app": "web"}}}
	got := Translate(local, "liqo-demo-rome", reflectiontest.Milan()).(*corev1.Secret)
	g.Expect(got.Labels).NotTo(HaveKey(serviceaccount.TokenLabel))
	g.Expect(got.Labels).To(HaveKeyWithValue("app", "web"))
	g.Expect(local.Labels).To(HaveKey(serviceaccount.TokenLabel), "the local object is not changed")
}

func TestTranslateLeavesTokenSecretNamesToTheServiceAccountReflector(t *testing.T) {
	g := NewWithT(t)
	local := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: serviceaccount.SecretName("default")}, Data: map[string][]byte{"token": []byte("forged")}}
	g.Expect(Translate(local, "liqo-demo-rome", reflectiontest.Milan())).To(BeNil())
}

func TestTheTwinsTokenSecretsAreOwnedElsewhere(t *testing.T) {
	g := NewWithT(t)
	token := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: serviceaccount.SecretName("default"),
		Labels: map[string]string{serviceaccount.TokenLabel: "true"}}}
	g.Expect(Kind.OwnedElsewhere(token)).To(BeTrue())
	g.Expect(Kind.OwnedElsewhere(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "db"}})).To(BeFalse())
}
