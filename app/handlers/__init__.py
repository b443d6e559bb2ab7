"""The app's bus-event handlers, one module per family of events. Each family owns
the widget state its events change, and says which events it takes in `routes()`."""
