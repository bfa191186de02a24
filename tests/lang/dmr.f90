! dmr: the DMRlib front-end from Fortran (the module morph_f08) under
! reconfigurations, as tests/apps/test-dmr-front-end.c does in C: a default
! array of N integers and a block-cyclic array of NB blocks of BS reals
! (sizes no number of processes divides), allocated with DMR_Alloc and moved
! by DMR_Reconfig (Table 1's functions). Every iteration each process checks
! that it holds exactly its part, with the values the iteration expects (so
! a joiner's DMR_Step() is checked too), then changes every value. Rank 0
! prints each size change ("it I: A -> B procs (dmr)", or "restarted at")
! and CHECK PASSED or CHECK FAILED.
!   lang-dmr-f ITERATIONS
program dmr_f
  use, intrinsic :: iso_fortran_env, only: int64, real64
  use mpi_f08
  use morph_f08
  use app_pause
  implicit none
  integer, parameter :: N = 1001, NB = 37, BS = 5
  type(morph_int64) :: v
  type(morph_real64) :: c
  integer :: provided, iters, i, p, q, size_seen, outcome
  logical :: restarted
  integer(int64) :: bad, total
  character(len=16) :: arg
  call get_command_argument(1, arg)
  read (arg, *) iters
  call MPI_Init_thread(MPI_THREAD_MULTIPLE, provided)
  call DMR_Init()
  restarted = .not. DMR_Is_new()
  if (restarted) then ! a joiner: no data yet, the arrays' shapes
    call DMR_Alloc(v, 0)
    call DMR_Alloc(c, 0, block=BS)
  else
    call init()
  end if
  bad = 0
  size_seen = -1
  do i = DMR_Step(), iters - 1
    call DMR_Reconfig(v, c)
    call MPI_Comm_size(DMR_Comm(), p)
    call MPI_Comm_rank(DMR_Comm(), q)
    if (q == 0 .and. size_seen > 0 .and. p /= size_seen) &
      print '(a,i0,a,i0,a,i0,a)', 'it ', i, ': ', size_seen, ' -> ', p, ' procs (dmr)'
    if (q == 0 .and. size_seen < 0 .and. restarted) &
      print '(a,i0,a,i0,a)', 'it ', i, ': restarted at ', p, ' procs (relaunch)'
    size_seen = p
    bad = bad + wrong(i, p, q)
    v%local = v%local + 1
    c%local = c%local + 1
    call pause_ms(20d0)
  end do
  call MPI_Allreduce(bad, total, 1, MPI_INTEGER8, MPI_SUM, DMR_Comm())
  if (q == 0) print '(a,i0,a)', merge('CHECK PASSED', 'CHECK FAILED', total == 0) // &
    ' dmr front-end from Fortran: ', total, ' wrong values or sizes'
  call DMR_Finalize(outcome)
  if (outcome /= 0 .or. total /= 0) stop 1, quiet=.true.

contains

  ! This process's initial parts.
  subroutine init()
    integer :: k, l, e
    call MPI_Comm_size(DMR_Comm(), p)
    call MPI_Comm_rank(DMR_Comm(), q)
    call DMR_Alloc(v, int(first(q + 1) - first(q)))
    call DMR_Alloc(c, blocks(p, q) * BS, block=BS)
    do k = 1, int(v%count)
      v%local(k) = first(q) + k - 1
    end do
    do l = 0, blocks(p, q) - 1
      do e = 0, BS - 1
        c%local(l * BS + e + 1) = real((q + l * p) * BS + e, real64) + 0.5_real64
      end do
    end do
  end subroutine

  integer(int64) function first(r)
    integer, intent(in) :: r
    first = int(r, int64) * N / p
  end function

  integer function blocks(p, q)
    integer, intent(in) :: p, q
    blocks = 0
    if (NB > q) blocks = (NB - q + p - 1) / p
  end function

  ! Wrong values and sizes in this process's parts at iteration it.
  integer(int64) function wrong(it, p, q)
    integer, intent(in) :: it, p, q
    integer :: k, l, e
    real(real64) :: want
    wrong = merge(0, 1, v%count == first(q + 1) - first(q))
    wrong = wrong + merge(0, 1, c%count == blocks(p, q) * BS)
    if (wrong > 0) return
    do k = 1, int(v%count)
      if (v%local(k) /= first(q) + k - 1 + it) wrong = wrong + 1
    end do
    do l = 0, blocks(p, q) - 1
      do e = 0, BS - 1
        want = real((q + l * p) * BS + e, real64) + 0.5_real64 + it
        if (transfer(c%local(l * BS + e + 1), 0_int64) /= transfer(want, 0_int64)) &
          wrong = wrong + 1
      end do
    end do
  end function

end program dmr_f
