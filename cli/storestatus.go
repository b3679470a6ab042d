package cli

import (
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/caddy-ark/caddy-ark/store/postgres"
	"github.com/spf13/cobra"
)

// storeStatusCommand builds `caddy ark store status`.
func storeStatusCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "status --store <postgres DSN> [--schema ark] [--timeout 2s]",
		Short: "Shows each server of a PostgreSQL store: up, primary or standby, replay lag",
		Long: `
Connects to each server that the connection string names (every host of a
multi-host string such as "host=db1,db2 port=5432,5432 ...", whatever its
target_session_attrs) and prints, one a line: whether it answered (and if
not, why), whether it is the primary or a standby, a standby's replay lag
and whether it streams from a primary now, and the newest record of the
store's history it holds. It asks the servers themselves, not a running
Caddy: it works while every node is down too, and shows the servers no
node is connected to. Each node's own view (the server it follows, its
lag, whether its writes are answered) is in its readiness check and its
caddy_ark_postgres_* metrics.

The exit status is 1 when no server answered; a store whose servers all
answer but none is the primary (a standby awaiting promotion) is said so
on the last line.
`,
		Args: cobra.NoArgs,
	}
	cmd.Flags().String("store", "", "The PostgreSQL connection string (postgres://… or key=value pairs), naming one server or several")
	cmd.Flags().String("schema", postgres.DefaultSchema, "The store's schema")
	cmd.Flags().Duration("timeout", 2*time.Second, "How long each server may take to answer, connecting included")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		dsn, _ := cmd.Flags().GetString("store")
		schema, _ := cmd.Flags().GetString("schema")
		timeout, _ := cmd.Flags().GetDuration("timeout")
		if !isPostgresDSN(dsn) {
			return errors.New("--store is required: a PostgreSQL connection string")
		}
		if timeout <= 0 {
			return fmt.Errorf("--timeout %v: must be positive", timeout)
		}
		servers, err := postgres.ServerStatuses(cmd.Context(), dsn, schema, timeout)
		if err != nil {
			return err
		}
		return printServerStatuses(cmd.OutOrStdout(), servers)
	}
	return cmd
}

// printServerStatuses prints servers as a table and a last line saying
// where writes go, and fails when none answered.
func printServerStatuses(w io.Writer, servers []postgres.ServerStatus) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tSTATE\tREPLAY LAG\tSTREAMING\tHISTORY")
	var up, primaries int
	for _, s := range servers {
		if !s.Up {
			fmt.Fprintf(tw, "%s\tdown: %s\t-\t-\t-\n", s.Server, s.Error)
			continue
		}
		up++
		lag, streaming := "-", "-"
		if s.Role == "standby" {
			lag, streaming = fmt.Sprintf("%.3fs", s.ReplayLag), "no"
			if s.Streaming {
				streaming = "yes"
			}
		} else {
			primaries++
		}
		history := "no schema"
		if s.HistorySeq >= 0 {
			history = fmt.Sprintf("seq %d", s.HistorySeq)
		}
		if s.Error != "" {
			history = s.Error
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.Server, s.Role, lag, streaming, history)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	switch {
	case up == 0:
		return errors.New("no server answered")
	case primaries == 0:
		fmt.Fprintln(w, "writes: no server answered as the primary: writes get 503 until a standby is promoted (pg_ctl promote)")
	case primaries > 1:
		fmt.Fprintf(w, "writes: %d servers answered as primaries: a standby was promoted while the old primary runs; stop one\n", primaries)
	default:
		fmt.Fprintln(w, "writes: the primary answers")
	}
	return nil
}
