// Command pin holds a file's pages in memory (mlock) until it is stopped,
// so that a measurement "once warm" finds them there: on a machine whose
// kernel pages out memory it sees little used (DAMON's reclaim, as on this
// project's machines), a large table read at random never stays warm by
// itself. The pages are the page cache's, shared with every process that
// maps the file. Needs CAP_IPC_LOCK or a large enough RLIMIT_MEMLOCK.
//
//	go run ./bench/pin FILE
package main

import (
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: pin FILE")
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	st, err := f.Stat()
	if err != nil {
		log.Fatal(err)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		log.Fatal(err)
	}
	if err := syscall.Mlock(data); err != nil {
		log.Fatalf("mlock %s: %v", os.Args[1], err)
	}
	fmt.Printf("pinned %d bytes of %s\n", len(data), os.Args[1])
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	<-stop
}
