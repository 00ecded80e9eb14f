"""Several server nodes on one PostgreSQL database: leases, fencing and adoption of rooms."""
