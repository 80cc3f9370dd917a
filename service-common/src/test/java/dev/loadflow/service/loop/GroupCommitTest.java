package dev.loadflow.service.loop;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GroupCommitTest {

    @Test
    void aLoneItemIsWrittenAtOnceByItsOwnCaller() {
        List<List<Integer>> writes = new ArrayList<>();
        GroupCommit<Integer, String> group = new GroupCommit<>(items -> {
            writes.add(items);
            return items.stream().map(i -> "w" + i).toList();
        }, 10);

        assertThat(group.submit(7)).isEqualTo("w7");
        assertThat(writes).containsExactly(List.of(7));
    }

    @Test
    void itemsArrivingDuringAWriteGoTogetherAndEachCallerGetsItsOwnResult() throws Exception {
        List<List<Integer>> writes = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch firstWriteStarted = new CountDownLatch(1);
        CountDownLatch releaseFirstWrite = new CountDownLatch(1);
        GroupCommit<Integer, Integer> group = new GroupCommit<>(items -> {
            writes.add(items);
            if (items.contains(0)) {
                firstWriteStarted.countDown();
                await(releaseFirstWrite);
            }
            return items.stream().map(i -> i * 10).toList();
        }, 100);
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<Integer> first = threads.submit(() -> group.submit(0));
            firstWriteStarted.await();
            List<Future<Integer>> others = new ArrayList<>();
            for (int i = 1; i <= 20; i++) {
                int item = i;
                others.add(threads.submit(() -> group.submit(item)));
            }
            while (group.waiting() < 20) {
                Thread.onSpinWait();
            }
            releaseFirstWrite.countDown();

            assertThat(first.get()).isZero();
            for (int i = 0; i < 20; i++) {
                assertThat(others.get(i).get()).isEqualTo((i + 1) * 10);
            }
        }
        assertThat(writes).hasSize(2);
        assertThat(writes.get(1)).hasSize(20);
    }

    @Test
    void aBatchIsNeverLargerThanTheMaximumAndEveryItemIsWrittenOnce() throws Exception {
        List<Integer> written = Collections.synchronizedList(new ArrayList<>());
        List<Integer> sizes = Collections.synchronizedList(new ArrayList<>());
        GroupCommit<Integer, Integer> group = new GroupCommit<>(items -> {
            sizes.add(items.size());
            written.addAll(items);
            sleep(2);
            return items;
        }, 8);
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Integer>> results = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                int item = i;
                results.add(threads.submit(() -> group.submit(item)));
            }
            for (int i = 0; i < 500; i++) {
                assertThat(results.get(i).get()).isEqualTo(i);
            }
        }
        assertThat(written).hasSize(500).doesNotHaveDuplicates();
        assertThat(sizes).allMatch(size -> size <= 8);
        assertThat(sizes.size()).as("items were grouped").isLessThan(500);
    }

    @Test
    void aFailedWriteFailsEveryItemOfItsBatchAndTheNextBatchStillGoes() {
        GroupCommit<Integer, Integer> group = new GroupCommit<>(items -> {
            if (items.contains(13)) {
                throw new IllegalStateException("database down");
            }
            return items;
        }, 10);

        assertThatThrownBy(() -> group.submit(13)).isInstanceOf(IllegalStateException.class).hasMessage("database down");
        assertThat(group.submit(14)).isEqualTo(14);
    }

    @Test
    void anItemTheStoreRefusesFailsOnlyItsOwnCallerAndTheOthersOfItsBatchAreWritten() throws Exception {
        List<List<Integer>> writes = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch firstWriteStarted = new CountDownLatch(1);
        CountDownLatch releaseFirstWrite = new CountDownLatch(1);
        GroupCommit<Integer, Integer> group = new GroupCommit<>(items -> {
            if (items.contains(0)) {
                firstWriteStarted.countDown();
                await(releaseFirstWrite);
            }
            if (items.contains(13)) {
                throw new IllegalArgumentException("13 refused");
            }
            writes.add(items);
            return items;
        }, 100, e -> e instanceof IllegalArgumentException);
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<Integer> first = threads.submit(() -> group.submit(0));
            firstWriteStarted.await();
            List<Future<Integer>> batch = new ArrayList<>();
            for (int i = 10; i <= 16; i++) {
                int item = i;
                batch.add(threads.submit(() -> group.submit(item)));
            }
            while (group.waiting() < 7) {
                Thread.onSpinWait();
            }
            releaseFirstWrite.countDown();

            assertThat(first.get()).isZero();
            for (int i = 10; i <= 16; i++) {
                Future<Integer> mine = batch.get(i - 10);
                if (i == 13) {
                    assertThatThrownBy(mine::get).hasCauseInstanceOf(IllegalArgumentException.class).hasMessageContaining("13 refused");
                } else {
                    assertThat(mine.get()).isEqualTo(i);
                }
            }
        }
        assertThat(writes.stream().flatMap(List::stream).toList()).as("every other item written once")
                .containsExactlyInAnyOrder(0, 10, 11, 12, 14, 15, 16);
        assertThat(writes).as("the failed batch written again item by item").hasSize(7);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
