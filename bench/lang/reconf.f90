! bench/lang reconf.f90: bench/runtime/bench-reconf.c in Fortran
! (morph_f08): one block-distributed array of doubles, the job's whole
! registered data, and a loop that only paces itself, so that what
! `morph run --report` measures is the reconfiguration alone.
!
!   bench-lang-reconf-f --bytes B [--iters N] [--sleep-ms S]
!
! Element g holds g wherever it lives; after every reconfiguration and at
! the end each process checks every 4093rd element and its last. Rank 0
! ends with "CHECK PASSED size=.. errors=0" (or FAILED).
program bench_reconf_f
  use, intrinsic :: iso_fortran_env, only: int64, real64
  use mpi_f08
  use morph_f08
  use app_pause
  implicit none
  type(morph_ctx) :: m
  type(morph_real64), target :: a
  integer(int64), target :: iter
  integer(int64) :: bytes, iters, i
  real(real64) :: sleep_ms
  integer :: provided, st, errors, seen, total
  type(morph_reconf_report) :: r
  call parse()
  call MPI_Init_thread(MPI_THREAD_MULTIPLE, provided)
  call morph_open(MPI_COMM_WORLD, m)
  iter = 0
  call morph_data_replicated(m, 'iter', iter)
  call morph_data_block(m, 'a', a, bytes / 8)
  if (morph_get_status(m) == MORPH_NEW) then
    do i = 1, a%count
      a%local(i) = real(a%offset + i - 1, real64)
    end do
  end if
  errors = 0
  seen = 0
  st = MORPH_STAYING
  do while (iter < iters)
    call morph_point(m, st)
    if (st == MORPH_LEAVING) exit
    call morph_last_report(m, r)
    if (r%seq /= seen .or. st == MORPH_JOINING) then
      seen = r%seq
      call verify()
    end if
    call pause_ms(sleep_ms)
    call MPI_Barrier(morph_comm(m)) ! iterations end together (bench-reconf.c says why)
    iter = iter + 1
  end do
  if (st /= MORPH_LEAVING) then
    call verify()
    call MPI_Allreduce(errors, total, 1, MPI_INTEGER, MPI_SUM, morph_comm(m))
    if (morph_rank(m) == 0) print '(a,a,i0,a,i0)', merge('CHECK PASSED', 'CHECK FAILED', &
      total == 0), ' size=', morph_size(m), ' errors=', total
    errors = total
  end if
  call morph_finalize(m, merge(0, 1, errors == 0))

contains

  subroutine parse()
    character(len=32) :: arg, val
    integer :: k
    bytes = 2**20
    iters = 40
    sleep_ms = 10
    do k = 1, command_argument_count() - 1, 2
      call get_command_argument(k, arg)
      call get_command_argument(k + 1, val)
      select case (arg)
      case ('--bytes')
        read (val, *) bytes
      case ('--iters')
        read (val, *) iters
      case ('--sleep-ms')
        read (val, *) sleep_ms
      end select
    end do
  end subroutine

  subroutine verify()
    integer(int64) :: k
    do k = 1, a%count, 4093
      call check(k)
    end do
    if (a%count > 0) call check(a%count)
  end subroutine

  subroutine check(k)
    integer(int64), intent(in) :: k
    if (transfer(a%local(k), 0_int64) /= transfer(real(a%offset + k - 1, real64), 0_int64)) &
      errors = errors + 1
  end subroutine

end program bench_reconf_f
