"""The server's routers, one module per area: pages, jam, protocol."""
