package dev.loadflow.console.web;

/** A request the console refuses, shown as a page with its status: what was wrong and how to put it right. */
public final class ConsoleProblem extends RuntimeException {

    private final int status;
    private final String title;

    ConsoleProblem(int status, String title, String detail) {
        super(detail);
        this.status = status;
        this.title = title;
    }

    static ConsoleProblem badRequest(String title, String detail) {
        return new ConsoleProblem(400, title, detail);
    }

    static ConsoleProblem notFound(String title, String detail) {
        return new ConsoleProblem(404, title, detail);
    }

    public int status() {
        return status;
    }

    public String title() {
        return title;
    }
}
