"""Headless tournaments: schedules, an event-sourced runner, standings, ratings and the SPRT.

* :mod:`cardgames.service.tournament.schedule`: round robin, seat rotation, duplicate deals, partnerships;
* :mod:`cardgames.service.tournament.log`: the tournament's events, one stream per tournament in the
  games' event store (a restarted runner rebuilds where it was from them);
* :mod:`cardgames.service.tournament.standings`: points, crosstable, openskill ratings, SPRT;
* :mod:`cardgames.service.tournament.sprt`: the sequential probability ratio test;
* :mod:`cardgames.service.tournament.manager`: creates tournaments, registers remote entrants with their
  credentials, and plays the schedule through the application layer (built-in bots in
  process, remote bots through their match assignments, :mod:`cardgames.service.tournament.hub`),
  holding each match's reveal until every match of its deal is over;
* :mod:`cardgames.service.tournament.requests`: a create request checked (settings, entrants), the
  tournaments' errors, and what the API shows of a tournament;
* :mod:`cardgames.service.tournament.matches`: one match played (its game, its seats, its result);
* :mod:`cardgames.service.tournament.keys`: the server's key that seat tokens are derived from.
"""
