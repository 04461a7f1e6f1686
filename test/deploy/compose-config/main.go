// Command compose-config loads a Compose file as `docker compose config --format json` does, with
// compose-spec/compose-go's project loader (the library Docker Compose is built on): schema
// validation, variable interpolation (`${VAR:?message}` fails when VAR is unset), merge keys and
// normalisation. It prints the resolved project as JSON on stdout, or the loader's errors on stderr
// with exit status 1. (compose-go's own `cmd` validator loads the raw model and, at v2.16.2, does
// not interpolate from the environment, hence this program.)
//
// Usage: compose-config <compose file>
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/compose-spec/compose-go/v2/cli"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: compose-config <compose file>")
		os.Exit(2)
	}
	file, err := filepath.Abs(os.Args[1])
	if err != nil {
		fail(err)
	}
	options, err := cli.NewProjectOptions([]string{file}, cli.WithWorkingDirectory(filepath.Dir(file)), cli.WithOsEnv)
	if err != nil {
		fail(err)
	}
	project, err := options.LoadProject(context.Background())
	if err != nil {
		fail(err)
	}
	out, err := project.MarshalJSON()
	if err != nil {
		fail(err)
	}
	fmt.Println(string(out))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
