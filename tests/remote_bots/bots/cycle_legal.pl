#!/usr/bin/env perl
# A bridge bot in Perl (cardgames bridge -- perl cycle_legal.pl): one decision per line
# on stdin (JSON), one command per line on stdout. It cycles through the legal commands.
use strict;
use warnings;
use JSON::PP;

$| = 1;
my $json = JSON::PP->new->canonical;
my $count = 0;
while (my $line = <STDIN>) {
    my $decision = $json->decode($line);
    my @legal = @{ $decision->{legal} };
    print $json->encode($legal[$count++ % scalar @legal]), "\n";
}
