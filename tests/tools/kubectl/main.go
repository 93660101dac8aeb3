// kubectl for the tests: the command of k8s.io/kubectl at the version of the test API server
// (kube-apiserver in tests/cluster/go.mod), built as Kubernetes' own cmd/kubectl builds it. Debian's
// kubectl is too many minors older than the server for the version skew kubectl supports (one).
package main

import (
	_ "k8s.io/client-go/plugin/pkg/client/auth"
	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	command := cmd.NewDefaultKubectlCommand()
	if err := cli.RunNoErrOutput(command); err != nil {
		util.CheckErr(err)
	}
}
