"""Replaying an audit log as one viewer saw it: in the terminal and as one self-contained HTML page.

* :mod:`cardgames.service.replay.steps` reads a log (the audit reader's checks), folds its events
  through the game's rules and gives, for each sequence number, ``view(state, viewer)``
  and the event as that viewer was shown it;
* :mod:`cardgames.service.replay.layout` turns any game's view into a generic table (seats, cards
  on the table, facts), shared by the two renderers;
* :mod:`cardgames.service.replay.terminal` draws it with rich and steps through it;
* :mod:`cardgames.service.replay.page` writes the HTML page (inline CSS and JavaScript, no network).
"""
