-- 018: a revision changed or deleted in place changes what visitors see
-- when it is the live one (or a variant of a running test), and nothing in
-- the service does that but pruning, which deletes revisions that show
-- nowhere. An operator's SQL can, so page_revisions joins the tables whose
-- changes notify every instance's public cache (003). Inserts are left out:
-- a new revision shows only once pages names it, which notifies.
CREATE TRIGGER page_revisions_notify_change
    AFTER UPDATE OR DELETE OR TRUNCATE ON page_revisions
    FOR EACH STATEMENT EXECUTE FUNCTION fileframe_notify_change();
