package dev.loadflow.console.web;

import dev.loadflow.console.story.LoadStory;
import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;

import java.util.List;

/** The console's pages, checked against their templates at build time. */
@CheckedTemplate
public final class Pages {

    private Pages() {
    }

    public static native TemplateInstance home(Caller caller, Views.Overview overview);

    public static native TemplateInstance load(Caller caller, LoadStory story, String notice);

    public static native TemplateInstance loads(Caller caller, Views.LoadFilter filter, List<Views.FoundLoad> loads, Views.Paging paging);

    public static native TemplateInstance waiting(Caller caller, String readAt, List<Views.DueRow> due,
                                                  List<Views.LateTimer> late, List<Views.QueuedLoad> queued, int limit);

    public static native TemplateInstance held(Caller caller, Views.HeldFilter filter, List<Views.Held> held, String notice,
                                               int repairMax);

    public static native TemplateInstance heldRepairPreview(Caller caller, Views.HeldFilter filter, int limit, String reason,
                                                            Views.RepairPreview preview);

    public static native TemplateInstance dead(Caller caller, Views.DeadFilter filter, List<Views.Dead> rows,
                                               Views.Paging paging, String notice, int replayMax);

    public static native TemplateInstance replayPreview(Caller caller, Views.DeadFilter filter, int limit,
                                                        dev.loadflow.service.admin.ReplayAnswer.Preview preview);

    public static native TemplateInstance ambiguous(Caller caller, List<Views.Ambiguous> rows, String notice);

    public static native TemplateInstance alerts(Caller caller, List<Views.Alert> alerts, Views.Paging paging);

    public static native TemplateInstance audit(Caller caller, String principal, String since, List<Views.Audit> entries,
                                                Views.Paging paging);

    public static native TemplateInstance sops(Caller caller, List<SopViews.Client> clients);

    /**
     * A client's SOP: its versions newest first with their diffs, and, for an operator, the edit form
     * holding {@code draft} (the rules as JSON) and a preview of it on a load when one was asked for.
     */
    public static native TemplateInstance sop(Caller caller, String clientId, List<SopViews.Version> versions, String draft,
                                              String reason, String previewLoadId,
                                              SopViews.Preview preview, String notice);

    public static native TemplateInstance signIn(String next, String error);

    public static native TemplateInstance problem(int status, String title, String detail);
}
