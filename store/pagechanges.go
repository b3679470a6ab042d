package store

// PageChanges reads history records a page at a time and calls fn with
// each, in order, until fn returns an error, which it then returns. page
// returns up to n records, in sequence order, after the sequence number
// after, starting from the after given; a page of fewer than n ends the
// records. A backend's page holds its transaction or connection only
// while it runs, so none is held while fn runs.
func PageChanges(after uint64, n int, page func(after uint64) ([]*Change, error), fn func(*Change) error) error {
	for {
		chunk, err := page(after)
		if err != nil {
			return err
		}
		for _, ch := range chunk {
			if err := fn(ch); err != nil {
				return err
			}
		}
		if len(chunk) < n {
			return nil
		}
		after = chunk[len(chunk)-1].Seq
	}
}
