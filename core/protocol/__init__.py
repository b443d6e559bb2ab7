"""The wire: SSE and WebSocket transports, wire models, and their mapping to one
transport-neutral event vocabulary. Imports nothing from the other rooms."""
