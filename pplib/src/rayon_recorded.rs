//! `.recorded()`: a rayon parallel-iterator adaptor that records the pipeline whatever
//! consumes it (`for_each`, `map`, `filter`, `fold`, `reduce`, `sum`, `collect`, `count`,
//! `min`, `any`, `zip`, ...).
//!
//! What is recorded (docs/predicates.md): the thread that runs the consumer opens a `par`
//! around the whole pipeline; every piece of the iterator that rayon hands one thread to
//! fold (a *run*, its unit of scheduling) runs in `task`s on that thread, from the moment
//! the fold starts to the moment it completes, tiled per item or per stretch of short items
//! as [`crate::PpParallelIterator::pp_for_each`] does; combining two halves' results (a
//! `reduce`, a `sum`'s addition, a `collect`'s append) is a `task` of its own. A thread
//! waiting inside one of rayon's joins for a stolen half has no task open: Idle, or Busy
//! again in the task of the run it steals.
//!
//! Consumer side: `.recorded()` wraps the consumer rayon passes down, so its folds cover
//! the work of every adaptor in the pipeline, before or after it. Producer side (an
//! indexed adaptor after `.recorded()` that takes it apart, such as `zip` or `enumerate`):
//! each piece of the iterator is one task from the moment it is split off to the end of its
//! fold. Put `.recorded()` last, right before the consumer, to get per-item tasks.

use rayon::iter::plumbing::{
    Consumer, Folder, Producer, ProducerCallback, Reducer, UnindexedConsumer,
};
use rayon::iter::{IndexedParallelIterator, ParallelIterator};

use crate::constructs::{par, task, task_scope, TaskGuard};
use crate::rayon_support::TaskRun;

/// A parallel iterator whose consumption is recorded ([`crate::PpParallelIterator::recorded`]).
#[derive(Debug, Clone)]
#[must_use = "iterator adaptors are lazy"]
pub struct Recorded<I> {
    base: I,
}

impl<I> Recorded<I> {
    pub(crate) fn new(base: I) -> Recorded<I> {
        Recorded { base }
    }
}

impl<I: ParallelIterator> ParallelIterator for Recorded<I> {
    type Item = I::Item;

    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>,
    {
        let _par = par();
        self.base
            .drive_unindexed(RecordedConsumer { base: consumer })
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Recorded<I> {
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        let _par = par();
        self.base.drive(RecordedConsumer { base: consumer })
    }

    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        let _par = par();
        return self.base.with_producer(Callback { callback });

        struct Callback<CB> {
            callback: CB,
        }

        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<CB> {
            type Output = CB::Output;

            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.callback.callback(RecordedProducer { base })
            }
        }
    }
}

/// The consumer `.recorded()` passes down: its folders run in tasks.
struct RecordedConsumer<C> {
    base: C,
}

impl<T, C: Consumer<T>> Consumer<T> for RecordedConsumer<C> {
    type Folder = RecordedFolder<C::Folder>;
    type Reducer = RecordedReducer<C::Reducer>;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, Self::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        (
            RecordedConsumer { base: left },
            RecordedConsumer { base: right },
            RecordedReducer { base: reducer },
        )
    }

    fn into_folder(self) -> Self::Folder {
        // The run's first task opens before the base folder exists (creating it can be
        // work: a `fold`'s identity, a `map_init`'s init).
        let mut run = TaskRun::new();
        run.start();
        RecordedFolder {
            base: self.base.into_folder(),
            run,
        }
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<T, C: UnindexedConsumer<T>> UnindexedConsumer<T> for RecordedConsumer<C> {
    fn split_off_left(&self) -> Self {
        RecordedConsumer {
            base: self.base.split_off_left(),
        }
    }

    fn to_reducer(&self) -> Self::Reducer {
        RecordedReducer {
            base: self.base.to_reducer(),
        }
    }
}

/// One run's fold, its items timed by a [`TaskRun`] (the last task ends when the fold
/// completes, or when it is dropped unwinding).
struct RecordedFolder<F> {
    base: F,
    run: TaskRun,
}

impl<T, F: Folder<T>> Folder<T> for RecordedFolder<F> {
    type Result = F::Result;

    fn consume(self, item: T) -> Self {
        let RecordedFolder { base, mut run } = self;
        let base = run.task(|| base.consume(item));
        RecordedFolder { base, run }
    }

    fn complete(self) -> F::Result {
        let RecordedFolder { base, run } = self;
        let result = base.complete();
        drop(run);
        result
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}

/// Combining two halves' results, recorded as a task.
struct RecordedReducer<R> {
    base: R,
}

impl<T, R: Reducer<T>> Reducer<T> for RecordedReducer<R> {
    fn reduce(self, left: T, right: T) -> T {
        task_scope(|| self.base.reduce(left, right))
    }
}

/// The producer `.recorded()` hands to an indexed adaptor after it: each piece is one task
/// from the time its fold or iteration starts to its end.
struct RecordedProducer<P> {
    base: P,
}

impl<P: Producer> Producer for RecordedProducer<P> {
    type Item = P::Item;
    type IntoIter = RunIter<P::IntoIter>;

    fn into_iter(self) -> Self::IntoIter {
        RunIter {
            _task: task(),
            base: self.base.into_iter(),
        }
    }

    fn min_len(&self) -> usize {
        self.base.min_len()
    }

    fn max_len(&self) -> usize {
        self.base.max_len()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(index);
        (
            RecordedProducer { base: left },
            RecordedProducer { base: right },
        )
    }

    fn fold_with<G: Folder<Self::Item>>(self, folder: G) -> G {
        let _task = task();
        self.base.fold_with(folder)
    }
}

/// A piece's items, iterated inside one task (which ends when the iterator is dropped).
struct RunIter<I> {
    _task: TaskGuard,
    base: I,
}

impl<I: Iterator> Iterator for RunIter<I> {
    type Item = I::Item;

    fn next(&mut self) -> Option<I::Item> {
        self.base.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.base.size_hint()
    }
}

impl<I: DoubleEndedIterator> DoubleEndedIterator for RunIter<I> {
    fn next_back(&mut self) -> Option<I::Item> {
        self.base.next_back()
    }
}

impl<I: ExactSizeIterator> ExactSizeIterator for RunIter<I> {}
