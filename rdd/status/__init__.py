"""Application status: listener events, the listener bus, the status store, the REST API.

What this package owns
----------------------
What a context reports about itself while it runs and after: the events
(:mod:`.events`), their delivery (:mod:`.bus`), the live state kept from them
(:mod:`.store`), its REST form (:mod:`.api`), and the event log with its replay
(:mod:`.event_log`, :mod:`.replay`). It sits below the scheduler (which posts events)
and knows nothing of streaming: layers above register their own events and REST routes.
"""
