#!/usr/bin/perl
# Lists a repository with HTTP::OAI::Harvester (Debian's libhttp-oai-perl)
# three ways and prints, tab-separated, how many records each saw:
#   next      the usual loop of HTTP::OAI's documentation:
#             $r = $h->ListIdentifiers(...); while ($rec = $r->next) {...}
#   onRecord  the onRecord callback, called for every record parsed;
#   manual    resume => 0, the loop following $r->resumptionToken by hand,
#             with ->next on each page;
# then "pages" (how many pages the manual loop asked) and "lastpage" (how
# many records its last page held), and HTTP::OAI's version.
#
# nextloop.pl <baseURL> <verb> <metadataPrefix>
use strict;
use warnings;
use HTTP::OAI;

my ($base, $verb, $prefix) = @ARGV;
my $list = sub {
	my ($h, %args) = @_;
	my $r = $verb eq 'ListRecords' ? $h->ListRecords(%args) : $h->ListIdentifiers(%args);
	die "$verb: " . $r->code . " " . $r->message . "\n" if $r->is_error;
	die "$verb: " . join(", ", map { $_->code } $r->errors) . "\n" if $r->errors;
	return $r;
};

my $usual = $list->(HTTP::OAI::Harvester->new(baseURL => $base), metadataPrefix => $prefix);
my $next = 0;
while (my $rec = $usual->next) {
	$next++;
}

my $callback = 0;
$list->(HTTP::OAI::Harvester->new(baseURL => $base), metadataPrefix => $prefix, onRecord => sub { $callback++ });

my $h = HTTP::OAI::Harvester->new(baseURL => $base, resume => 0);
my ($manual, $pages, $last) = (0, 0, 0);
my %args = (metadataPrefix => $prefix);
while (1) {
	my $r = $list->($h, %args);
	$pages++;
	$last = 0;
	while (my $rec = $r->next) {
		$manual++;
		$last++;
	}
	my $token = $r->resumptionToken;
	last if !defined $token || !$token->resumptionToken;
	%args = (resumptionToken => $token->resumptionToken);
}
print "next\t$next\nonRecord\t$callback\nmanual\t$manual\npages\t$pages\nlastpage\t$last\nversion\t$HTTP::OAI::VERSION\n";
