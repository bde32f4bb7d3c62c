-- A reply's budget hold in one round trip (docs/decisions/072; app/data/budgets.server.ts holdBudget).
-- Each statement of a PL/pgSQL function reads with a fresh snapshot, so what is read after
-- the per-user lock includes every hold committed before it: exact across instances.
CREATE OR REPLACE FUNCTION nuvara_hold_budget(
  p_uid text, p_message uuid, p_day date, p_month date, p_lease interval,
  p_daily_tokens bigint, p_monthly_tokens bigint, p_daily_usd bigint, p_monthly_usd bigint,
  p_prompt bigint, p_wanted bigint, p_in_price double precision, p_out_price double precision, p_min bigint
) RETURNS TABLE (deleted boolean, day_tokens bigint, month_tokens bigint, day_usd bigint, month_usd bigint, output bigint)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  dt bigint; mt bigint; du bigint; mu bigint;
  best bigint := p_wanted;
BEGIN
  -- The account lock, shared (as writeForAccount takes it), then the tombstone: a deleted account holds nothing.
  PERFORM pg_advisory_xact_lock_shared(74210045, hashtext(p_uid));
  IF EXISTS (SELECT 1 FROM deleted_accounts WHERE uid = p_uid) THEN
    RETURN QUERY SELECT true, 0::bigint, 0::bigint, 0::bigint, 0::bigint, 0::bigint;
    RETURN;
  END IF;
  -- Exclusive per user: reading what is left and holding it are one step.
  PERFORM pg_advisory_xact_lock(74210072, hashtext(p_uid));
  SELECT coalesce(sum(s.tokens) FILTER (WHERE s.day = p_day), 0), coalesce(sum(s.tokens), 0),
         coalesce(sum(s.usd) FILTER (WHERE s.day = p_day), 0), coalesce(sum(s.usd), 0)
    INTO dt, mt, du, mu
    FROM (
      SELECT u.day, u.input_tokens + u.output_tokens AS tokens, u.cost_micro_usd AS usd
        FROM usage_daily u WHERE u.uid = p_uid AND u.day >= p_month AND u.day <= p_day
      UNION ALL
      SELECT r.day, r.held_tokens, r.held_micro_usd
        FROM quota_reservations r
        WHERE r.uid = p_uid AND r.day >= p_month AND r.reserved_at >= now() - p_lease AND r.message_id <> p_message
    ) s;
  -- The longest reply every budget allows after the prompt; a spent budget allows none.
  IF p_daily_tokens IS NOT NULL THEN
    best := CASE WHEN p_daily_tokens - dt <= 0 THEN 0 ELSE least(best, p_daily_tokens - dt - p_prompt) END;
  END IF;
  IF p_monthly_tokens IS NOT NULL THEN
    best := CASE WHEN p_monthly_tokens - mt <= 0 THEN 0 ELSE least(best, p_monthly_tokens - mt - p_prompt) END;
  END IF;
  IF p_daily_usd IS NOT NULL THEN
    best := CASE
      WHEN p_daily_usd - du <= 0 THEN 0
      WHEN p_out_price > 0 THEN least(best, floor((p_daily_usd - du - p_prompt * p_in_price) / p_out_price)::bigint)
      WHEN p_daily_usd - du - p_prompt * p_in_price < 0 THEN 0
      ELSE best END;
  END IF;
  IF p_monthly_usd IS NOT NULL THEN
    best := CASE
      WHEN p_monthly_usd - mu <= 0 THEN 0
      WHEN p_out_price > 0 THEN least(best, floor((p_monthly_usd - mu - p_prompt * p_in_price) / p_out_price)::bigint)
      WHEN p_monthly_usd - mu - p_prompt * p_in_price < 0 THEN 0
      ELSE best END;
  END IF;
  best := greatest(best, 0);
  IF best >= p_min THEN
    UPDATE quota_reservations SET held_tokens = p_prompt + best, held_micro_usd = ceil(p_prompt * p_in_price + best * p_out_price)::bigint
      WHERE uid = p_uid AND message_id = p_message;
  END IF;
  RETURN QUERY SELECT false, dt, mt, du, mu, best;
END
$$;
