#!/usr/bin/perl
# Harvests an OAI-PMH repository with HTTP::OAI::Harvester (Debian's
# libhttp-oai-perl), which follows the resumption tokens, and prints one
# line per record: identifier, datestamp and "deleted" or "-",
# tab-separated; then "responseDate" and the date to harvest from next
# time: the responseDate of an Identify sent just before the list, which
# is no later than the list's own.
#
# harvest.pl <baseURL> <verb> <metadataPrefix> [<from> [<set>]]
use strict;
use warnings;
use HTTP::OAI;

my ($base, $verb, $prefix, $from, $set) = @ARGV;
my $h = HTTP::OAI::Harvester->new(baseURL => $base, resume => 1);
my $id = $h->Identify;
die "Identify: " . $id->code . " " . $id->message . "\n" if $id->is_error;
my %args = (metadataPrefix => $prefix, onRecord => sub {
	my $rec = shift;
	my $hd = $rec->can('header') ? $rec->header : $rec;
	printf "%s\t%s\t%s\n", $hd->identifier, $hd->datestamp, ($hd->status // '') eq 'deleted' ? 'deleted' : '-';
});
$args{from} = $from if defined $from && $from ne '';
$args{set}  = $set  if defined $set  && $set ne '';
my $r = $verb eq 'ListRecords' ? $h->ListRecords(%args) : $h->ListIdentifiers(%args);
die "harvest: " . $r->code . " " . $r->message . "\n" if $r->is_error;
for my $e ($r->errors) {
	die "harvest: " . $e->code . " " . $e->message . "\n" if $e->code ne 'noRecordsMatch';
}
print "responseDate\t" . $id->responseDate . "\n";
