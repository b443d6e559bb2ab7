"""From events to history: the response state machine, the bus sink, committed
history, the turn loop and the event bus."""
