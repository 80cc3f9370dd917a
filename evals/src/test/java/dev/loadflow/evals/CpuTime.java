package dev.loadflow.evals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * CPU time (user + system) of processes, read from Linux's {@code /proc/<pid>/stat}: what each
 * service, PostgreSQL and the load generator spent during a benchmark run.
 */
final class CpuTime {

    /** Linux's clock ticks per second ({@code getconf CLK_TCK}), 100 on every common build. */
    private static final long TICKS_PER_SECOND = 100;

    private CpuTime() {
    }

    /** Milliseconds of CPU {@code pid} has used so far; 0 for a process that is gone. */
    static long millis(long pid) {
        return millis(pid, false);
    }

    /**
     * Milliseconds of CPU {@code pid} has used so far, with {@code reaped} also what its children
     * that have exited used; 0 for a process that is gone.
     */
    private static long millis(long pid, boolean reaped) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime
            if (reaped) {
                ticks += Long.parseLong(fields[13]) + Long.parseLong(fields[14]); // cutime, cstime
            }
            return ticks * 1000 / TICKS_PER_SECOND;
        } catch (IOException | RuntimeException gone) {
            return 0;
        }
    }

    /**
     * Milliseconds of CPU all processes named {@code command} have used, and their exited
     * children: PostgreSQL's server, its backends and the backends and autovacuum workers that
     * have exited (the server reaps them, and their CPU is counted in its own {@code cutime}).
     */
    static long millisOfAll(String command) {
        try (Stream<Path> processes = Files.list(Path.of("/proc"))) {
            return processes.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
                    .filter(p -> command.equals(comm(p)))
                    .mapToLong(p -> millis(Long.parseLong(p.getFileName().toString()), true)).sum();
        } catch (IOException e) {
            return 0;
        }
    }

    /** This JVM's CPU so far. */
    static long millisOfSelf() {
        return millis(ProcessHandle.current().pid());
    }

    private static String comm(Path process) {
        try {
            return Files.readString(process.resolve("comm")).strip();
        } catch (IOException gone) {
            return "";
        }
    }
}
