! The smallest malleable Fortran program: examples/minimal.c with the
! morph_f08 module. A block-distributed vector, incremented 200 times
! while `morph run` or morphd grows and shrinks the job.
program minimal
  use mpi_f08
  use morph_f08
  implicit none
  integer, parameter :: n = 1000000
  integer, target :: iter = 0
  integer :: provided, st = MORPH_NEW, outcome
  logical :: ok
  double precision :: local = 0, total = 0
  type(morph_ctx) :: m
  type(morph_real64), target :: x
  call MPI_Init_thread(MPI_THREAD_MULTIPLE, provided)
  call morph_open(MPI_COMM_WORLD, m)
  call morph_data_replicated(m, 'iter', iter)      ! the step counter
  call morph_data_block(m, 'x', x, n)              ! follows the processes
  do while (iter < 200)
    call morph_point(m, st)                        ! the job may resize here
    if (st == MORPH_LEAVING) exit
    x%local = x%local + 1                          ! x%local: this process's part
    iter = iter + 1
  end do
  if (st /= MORPH_LEAVING) then
    local = sum(x%local)
    call MPI_Reduce(local, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, morph_comm(m))
    if (morph_rank(m) == 0) print '(a,i0,a,i0,a,i0,a)', 'sum ', nint(total, 8), ', expected ', &
      200 * int(n, 8), ', on ', morph_size(m), ' processes'
  end if
  ok = st == MORPH_LEAVING .or. morph_rank(m) /= 0 .or. abs(total - 200d0 * n) < 0.5d0
  call morph_finalize(m, merge(0, 1, ok), outcome)
  if (outcome /= 0) stop outcome, quiet=.true.
end program minimal
