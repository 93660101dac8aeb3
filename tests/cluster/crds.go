package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"
)

// installCRDs creates or updates every CustomResourceDefinition in dir/*.yaml (one a file, read
// strictly: an unknown field is an error) and waits until each is established.
func (c cluster) installCRDs(dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no CRDs in %s", dir)
	}
	var crds []apiextensionsv1.CustomResourceDefinition
	for _, file := range files {
		crd, err := readCRD(file)
		if err != nil {
			return err
		}
		crds = append(crds, crd)
	}
	return c.applyCRDs(crds)
}

// readCRD reads one CustomResourceDefinition, strictly.
func readCRD(file string) (apiextensionsv1.CustomResourceDefinition, error) {
	var crd apiextensionsv1.CustomResourceDefinition
	raw, err := os.ReadFile(file)
	if err != nil {
		return crd, err
	}
	if err := yaml.UnmarshalStrict(raw, &crd); err != nil {
		return crd, fmt.Errorf("%s: %w", file, err)
	}
	return crd, nil
}

// applyCRDs creates or updates each CRD and waits until it is established.
func (c cluster) applyCRDs(list []apiextensionsv1.CustomResourceDefinition) error {
	config, err := clientcmd.BuildConfigFromFlags("", c.kubeconfig())
	if err != nil {
		return err
	}
	client, err := apiextensions.NewForConfig(config)
	if err != nil {
		return err
	}
	crds := client.ApiextensionsV1().CustomResourceDefinitions()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, crd := range list {
		existing, err := crds.Get(ctx, crd.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			_, err = crds.Create(ctx, &crd, metav1.CreateOptions{FieldValidation: "Strict"})
		case err == nil:
			crd.ResourceVersion = existing.ResourceVersion
			_, err = crds.Update(ctx, &crd, metav1.UpdateOptions{FieldValidation: "Strict"})
		}
		if err != nil {
			return fmt.Errorf("installing %s: %w", crd.Name, err)
		}
		if err := waitEstablished(ctx, crds, crd.Name); err != nil {
			return err
		}
	}
	return nil
}

type crdGetter interface {
	Get(context.Context, string, metav1.GetOptions) (*apiextensionsv1.CustomResourceDefinition, error)
}

// waitEstablished waits for the Established and NamesAccepted conditions; it reports the
// NonStructuralSchema condition or the names' conflict when there is one.
func waitEstablished(ctx context.Context, crds crdGetter, name string) error {
	for {
		crd, err := crds.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		var established, accepted bool
		for _, cond := range crd.Status.Conditions {
			switch {
			case cond.Type == apiextensionsv1.NonStructuralSchema && cond.Status == apiextensionsv1.ConditionTrue:
				return fmt.Errorf("%s: schema is not structural: %s", name, cond.Message)
			case cond.Type == apiextensionsv1.NamesAccepted && cond.Status == apiextensionsv1.ConditionFalse:
				return fmt.Errorf("%s: names not accepted: %s", name, cond.Message)
			case cond.Type == apiextensionsv1.Established:
				established = cond.Status == apiextensionsv1.ConditionTrue
			case cond.Type == apiextensionsv1.NamesAccepted:
				accepted = cond.Status == apiextensionsv1.ConditionTrue
			}
		}
		if established && accepted {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not established: %w", name, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
