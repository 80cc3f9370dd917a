-- Channels whose circuit a dispatcher opened, until when: what autoscaling leaves out (rows held
-- back by an open circuit are no work a new dispatcher could do, only more trial calls to a
-- provider that is down). A row expires by itself when no dispatcher refreshes it.
CREATE TABLE channel_circuit (
    channel    text        NOT NULL,
    open_until timestamptz NOT NULL,
    opened_at  timestamptz NOT NULL,
    CONSTRAINT channel_circuit_pkey PRIMARY KEY (channel)
);
