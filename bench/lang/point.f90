! bench/lang point.f90: point.c from Fortran (morph_f08): the same block
! registration, the same batches, the same medians.
!   POINT lang=fortran check_ns=.. uninhibited_ns=..
program bench_point_f
  use, intrinsic :: iso_fortran_env, only: real64
  use mpi_f08
  use morph_f08
  implicit none
  type(morph_ctx) :: m
  type(morph_real64), target :: rows
  integer :: provided, calls, st
  character(len=16) :: arg
  real(real64) :: unin, inh
  calls = 2000
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) calls
  end if
  call MPI_Init_thread(MPI_THREAD_MULTIPLE, provided)
  call morph_open(MPI_COMM_WORLD, m)
  call morph_data_block(m, 'rows', rows, 1000)
  unin = per_point(calls)
  call morph_set_inhibitors(m, 0d0, 1000000000)
  call morph_point(m, st)
  inh = per_point(10 * calls)
  if (morph_rank(m) == 0) print '(a,f0.2,a,f0.1)', 'POINT lang=fortran check_ns=', inh, &
    ' uninhibited_ns=', unin
  call morph_finalize(m, 0)

contains

  real(real64) function per_point(n)
    integer, intent(in) :: n
    real(real64) :: ns(21), t0, x
    integer :: b, i, j
    do b = 1, 21
      call MPI_Barrier(morph_comm(m))
      t0 = MPI_Wtime()
      do i = 1, n
        call morph_point(m, st)
      end do
      ns(b) = (MPI_Wtime() - t0) * 1d9 / n
    end do
    do i = 2, 21 ! insertion sort: 21 values
      x = ns(i)
      j = i - 1
      do while (j >= 1)
        if (ns(j) <= x) exit
        ns(j + 1) = ns(j)
        j = j - 1
      end do
      ns(j + 1) = x
    end do
    per_point = ns(11)
  end function

end program bench_point_f
