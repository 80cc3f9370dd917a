-- A dispatcher claims each channel's due rows apart (as many as that channel can send at once),
-- so a slow channel's backlog never stands in front of another channel's rows: one index walk
-- per channel, from its oldest due row.
CREATE INDEX outbox_channel_due_idx ON outbox (channel, available_at) WHERE status = 'pending';
